/** Something waiting until `due` (ms since the epoch) unless woken earlier: `fire` wakes it. */
export interface ClockWaiter {
  due: number;
  fire(): void;
}

/**
 * One timer for every waiting follower of a runtime, instead of a timer per stream per wait: while
 * anyone waits it ticks every `tickMs` and fires the waiters whose time has come (heartbeats, polls,
 * liveness checks are late by at most one tick). Adding and removing a waiter allocate nothing.
 */
export class FollowClock {
  readonly #waiting = new Set<ClockWaiter>();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(readonly tickMs: number) {
    if (!(tickMs > 0)) throw new RangeError(`FollowClock: tickMs must be positive (got ${tickMs})`);
  }

  /** Waiters now registered (for tests and diagnostics). */
  get size(): number {
    return this.#waiting.size;
  }

  add(waiter: ClockWaiter): void {
    this.#waiting.add(waiter);
    this.#timer ??= setInterval(() => this.#tick(), this.tickMs);
  }

  delete(waiter: ClockWaiter): void {
    this.#waiting.delete(waiter);
    if (this.#waiting.size === 0) this.#stop();
  }

  #tick(): void {
    const now = Date.now();
    for (const waiter of this.#waiting) {
      if (waiter.due > now) continue;
      this.#waiting.delete(waiter);
      waiter.fire();
    }
    if (this.#waiting.size === 0) this.#stop();
  }

  #stop(): void {
    if (this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/** A tick fine enough for the shortest of these intervals (a quarter of it, 5 to 250 ms). */
export function tickFor(...intervalsMs: Array<number | undefined>): number {
  const shortest = Math.min(...intervalsMs.map((ms) => (ms !== undefined && ms > 0 ? ms : Infinity)));
  return Math.min(250, Math.max(5, Math.floor(shortest / 4)));
}
