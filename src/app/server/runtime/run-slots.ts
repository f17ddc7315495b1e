import { RequestError } from "../request-error.js";

export interface RunLimits {
  /** Runs at once on this replica, all users together (default 100). */
  maxConcurrentRuns?: number;
  /** Runs at once per user on this replica (default a quarter of `maxConcurrentRuns`, at least 1). */
  maxRunsPerUser?: number;
  /** Wait for a free slot instead of answering 429 at once (default false). */
  queue?: boolean;
  /** How long a queued request waits before it gets 429 (default 30 s). */
  queueTimeoutMs?: number;
}

interface Waiter {
  user: string;
  grant: () => void;
}

/** What a 429 tells the client to wait, in seconds. */
const RETRY_AFTER_SECONDS = 1;

/**
 * Run slots per user and in total. `take` reserves a slot synchronously (no await between the check
 * and the count, so a burst cannot overshoot) and returns its release; when none is free it throws a
 * `rate_limit` (429 with Retry-After at the HTTP edge), or with `queue` waits first-come-first-served up to the timeout.
 */
export class RunSlots {
  readonly #max: number;
  readonly #perUser: number;
  readonly #queue: boolean;
  readonly #timeoutMs: number;
  #total = 0;
  readonly #byUser = new Map<string, number>();
  readonly #waiting: Waiter[] = [];

  constructor(limits: RunLimits = {}) {
    this.#max = limits.maxConcurrentRuns ?? 100;
    this.#perUser = limits.maxRunsPerUser ?? Math.max(1, Math.floor(this.#max / 4));
    this.#queue = limits.queue ?? false;
    this.#timeoutMs = limits.queueTimeoutMs ?? 30_000;
  }

  take(user: string): Promise<() => void> {
    // Free, and no earlier request waits for a slot it could take now: reserve at once.
    if (this.#free(user) && !this.#waiting.some((w) => this.#free(w.user)))
      return Promise.resolve(this.#reserve(user));
    if (!this.#queue) return Promise.reject(this.#refusal(user));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        user,
        grant: () => {
          clearTimeout(timer);
          resolve(this.#reserve(user));
        },
      };
      const timer = setTimeout(() => {
        this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
        reject(this.#refusal(user));
      }, this.#timeoutMs);
      this.#waiting.push(waiter);
    });
  }

  #free(user: string): boolean {
    return this.#total < this.#max && (this.#byUser.get(user) ?? 0) < this.#perUser;
  }

  #reserve(user: string): () => void {
    this.#total += 1;
    this.#byUser.set(user, (this.#byUser.get(user) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#total -= 1;
      const left = (this.#byUser.get(user) ?? 1) - 1;
      if (left === 0) this.#byUser.delete(user);
      else this.#byUser.set(user, left);
      this.#grantWaiting();
    };
  }

  /** Grants freed slots to waiting requests in arrival order (skipping users still at their limit). */
  #grantWaiting(): void {
    for (let i = 0; i < this.#waiting.length && this.#total < this.#max; ) {
      const waiter = this.#waiting[i]!;
      if (this.#free(waiter.user)) {
        this.#waiting.splice(i, 1);
        waiter.grant();
      } else i += 1;
    }
  }

  #refusal(user: string): RequestError {
    const mine = (this.#byUser.get(user) ?? 0) >= this.#perUser;
    return new RequestError(
      "rate_limit",
      mine
        ? `you already run ${this.#perUser} replies on this server (the per-user limit); retry when one ends`
        : `this server already runs ${this.#max} replies; retry shortly`,
      RETRY_AFTER_SECONDS,
    );
  }
}
