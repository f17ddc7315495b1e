import type { RunLease } from "../backend/types.js";

/** Ticks of the timer per renewal period: a lease is renewed within half a tick of its due time. */
const TICKS_PER_PERIOD = 10;

const LOST = "the run lost its session lock";
const UNRENEWED = "the run could not renew its session lock";

interface Held {
  onLost: (reason: string) => void;
  /** When the lease is renewed next (`performance.now()` time: monotonic, whatever the wall clock does). */
  due: number;
}

/**
 * Renews every run lease a runtime holds, each `everyMs` after it was taken or last renewed, from one
 * timer that ticks ten times per period; the leases due on the same tick are renewed in the same turn
 * of the event loop (a backend can send them as one command). Renewing all of them at once instead
 * made one burst of every lease per period (10,000 runs: one 10,000-key script on Redis, and 10,000
 * renewals answered at once) that stalled every stream on the replica; runs start at different
 * times, so their renewals spread out. Due times are on the monotonic clock: a wall clock set back
 * never delays a renewal, and a late tick (a busy event loop) delays only the renewals due on it. A
 * lease that cannot be renewed (taken over, or the backend unreachable) calls its run's `onLost`,
 * which stops the run. With `renewMany` (the backend's `RunLocks.renewMany`) the leases due on a tick
 * go to the backend in one call: one statement or script, and one promise instead of a chain per lease.
 */
export class LeaseRenewals {
  /** In the order they fall due: a lease renewed moves to the end. */
  readonly #held = new Map<RunLease, Held>();
  readonly #tickMs: number;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    readonly everyMs: number,
    private readonly renewMany?: (leases: RunLease[]) => Promise<boolean[]>,
  ) {
    if (!(everyMs > 0 && Number.isFinite(everyMs))) {
      throw new RangeError(`LeaseRenewals: everyMs must be a positive finite number (got ${everyMs})`);
    }
    this.#tickMs = everyMs / TICKS_PER_PERIOD;
  }

  /** Leases renewed now (for tests and diagnostics). */
  get size(): number {
    return this.#held.size;
  }

  add(lease: RunLease, onLost: (reason: string) => void): void {
    this.#held.delete(lease);
    this.#held.set(lease, { onLost, due: performance.now() + this.everyMs });
    this.#timer ??= setInterval(() => this.#renewDue(), this.#tickMs);
  }

  delete(lease: RunLease): void {
    this.#held.delete(lease);
    if (this.#held.size > 0 || this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #renewDue(): void {
    const now = performance.now();
    const due: Array<[RunLease, Held]> = [];
    for (const entry of this.#held) {
      if (entry[1].due > now + this.#tickMs / 2) break;
      due.push(entry);
    }
    for (const [lease, held] of due) {
      this.#held.delete(lease);
      held.due = now + this.everyMs;
      this.#held.set(lease, held);
    }
    if (due.length === 0) return;
    if (!this.renewMany) {
      for (const [lease, held] of due)
        lease.renew().then(
          (ok) => ok || held.onLost(LOST),
          () => held.onLost(UNRENEWED),
        );
      return;
    }
    this.renewMany(due.map(([lease]) => lease)).then(
      (renewed) => {
        for (const [i, [, held]] of due.entries()) if (renewed[i] !== true) held.onLost(LOST);
      },
      () => {
        for (const [, held] of due) held.onLost(UNRENEWED);
      },
    );
  }
}
