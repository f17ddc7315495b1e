import type { RunLease } from "./types.js";

interface HeldLease {
  owner: string;
  /** Marks the lease released (its lock was freed by other means than `release`, e.g. a run's end). */
  released(): void;
}

/** The leases a backend handed out, with what its `endRun` needs to free their locks itself. */
export class HeldLeases {
  readonly #held = new WeakMap<RunLease, HeldLease>();

  add(lease: RunLease, held: HeldLease): RunLease {
    this.#held.set(lease, held);
    return lease;
  }

  /** The lease's owner and marker; a lease another backend handed out is refused. */
  of(lease: RunLease): HeldLease {
    const held = this.#held.get(lease);
    if (!held) throw new TypeError(`endRun: the lease of session "${lease.sessionId}" is not this backend's`);
    return held;
  }
}
