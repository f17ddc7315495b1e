import type { RunLease } from "./service-backend.js";

/** What a backend keeps of a lease it handed out. */
export interface HeldLease {
  readonly owner: string;
  /** The lease's fencing token (`RunLease.generation`). */
  readonly generation: number;
  /** Set once its lock is freed (`release`, or a run's end that freed it itself): it renews no more. */
  released: boolean;
}

/** A lease still held, and its owner, as `renewMany` hands them to a backend's bulk renewal. */
export interface LeaseToRenew {
  readonly lease: RunLease;
  readonly owner: string;
  readonly generation: number;
}

/** The leases a backend handed out, with what its `endRun` and `renewMany` need. */
export class HeldLeases {
  readonly #held = new WeakMap<RunLease, HeldLease>();

  add(lease: RunLease, held: HeldLease): RunLease {
    this.#held.set(lease, held);
    return lease;
  }

  /** The lease's owner, generation and marker, or undefined for a lease this backend did not hand out. */
  find(lease: RunLease): HeldLease | undefined {
    return this.#held.get(lease);
  }

  /** The lease's owner and marker; a lease another backend handed out is refused. */
  of(lease: RunLease): HeldLease {
    const held = this.#held.get(lease);
    if (!held)
      throw new TypeError(
        `the lease of session "${lease.sessionId}" is not this backend's (a lease from another backend object cannot fence its writes)`,
      );
    return held;
  }

  /**
   * `RunLocks.renewMany` for a backend: `renew` renews the leases still held in one round trip and
   * answers for each; the others (released, or another backend's) answer false without a write.
   */
  async renewMany(
    leases: readonly RunLease[],
    renew: (held: LeaseToRenew[]) => Promise<boolean[]>,
  ): Promise<boolean[]> {
    const answers = leases.map(() => false);
    const toRenew: LeaseToRenew[] = [];
    const at: number[] = [];
    for (const [i, lease] of leases.entries()) {
      const held = this.#held.get(lease);
      if (!held || held.released) continue;
      toRenew.push({ lease, owner: held.owner, generation: held.generation });
      at.push(i);
    }
    if (toRenew.length === 0) return answers;
    const renewed = await renew(toRenew);
    for (const [k, i] of at.entries()) answers[i] = renewed[k] === true;
    return answers;
  }
}
