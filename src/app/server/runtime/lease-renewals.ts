import type { RunLease } from "../backend/types.js";

/**
 * Renews every run lease a runtime holds on one timer, all in the same turn of the event loop (a
 * backend can send them as one command), instead of a timer per run. A lease that cannot be renewed
 * (taken over, or the backend unreachable) calls its run's `onLost`, which stops the run.
 */
export class LeaseRenewals {
  readonly #held = new Map<RunLease, (reason: string) => void>();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(readonly everyMs: number) {
    if (!(everyMs > 0)) throw new RangeError(`LeaseRenewals: everyMs must be positive (got ${everyMs})`);
  }

  /** Leases renewed now (for tests and diagnostics). */
  get size(): number {
    return this.#held.size;
  }

  add(lease: RunLease, onLost: (reason: string) => void): void {
    this.#held.set(lease, onLost);
    this.#timer ??= setInterval(() => this.#renewAll(), this.everyMs);
  }

  delete(lease: RunLease): void {
    this.#held.delete(lease);
    if (this.#held.size > 0 || this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #renewAll(): void {
    for (const [lease, onLost] of this.#held) {
      lease.renew().then(
        (ok) => ok || onLost("the run lost its session lock"),
        () => onLost("the run could not renew its session lock"),
      );
    }
  }
}
