/**
 * Runs indexing jobs fairly between users: at most one job in flight per user and `concurrency` in
 * all, users served round-robin. A user who uploads a hundred files waits for their own; a user
 * who uploads one afterwards starts at the next free slot, not after the hundred.
 */
export class IndexingQueue {
  readonly concurrency: number;
  /** Waiting jobs per user, users in the order they first queued something. */
  readonly #waiting = new Map<string, Array<() => Promise<void>>>();
  readonly #running = new Set<string>();
  /** When each user's last job started (a counter): the user served longest ago goes next. */
  readonly #lastServed = new Map<string, number>();
  #turn = 0;

  constructor(concurrency: number) {
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new Error(`indexing concurrency must be a positive integer, got ${concurrency}`);
    this.concurrency = concurrency;
  }

  /**
   * Queues `job` for `user`; it starts when the user has nothing running and a slot is free, never
   * before the caller's synchronous code has finished (the caller can still record the job).
   */
  add(user: string, job: () => Promise<void>): void {
    const jobs = this.#waiting.get(user);
    if (jobs) jobs.push(job);
    else this.#waiting.set(user, [job]);
    queueMicrotask(() => this.#pump());
  }

  /** Jobs waiting (not started), over all users. */
  get waiting(): number {
    let count = 0;
    for (const jobs of this.#waiting.values()) count += jobs.length;
    return count;
  }

  /** The waiting user with nothing running who was served longest ago (never served: first). */
  #nextUser(): string | undefined {
    let next: string | undefined;
    let nextServed = Number.POSITIVE_INFINITY;
    for (const user of this.#waiting.keys()) {
      if (this.#running.has(user)) continue;
      const served = this.#lastServed.get(user) ?? -1;
      if (served < nextServed) {
        next = user;
        nextServed = served;
      }
    }
    return next;
  }

  #pump(): void {
    while (this.#running.size < this.concurrency) {
      const user = this.#nextUser();
      if (user === undefined) return;
      const jobs = this.#waiting.get(user) as Array<() => Promise<void>>;
      const job = jobs.shift() as () => Promise<void>;
      if (jobs.length === 0) this.#waiting.delete(user);
      this.#lastServed.set(user, this.#turn++);
      this.#running.add(user);
      void job()
        .catch(() => {}) // a job reports its own failure
        .finally(() => {
          this.#running.delete(user);
          this.#pump();
        });
    }
  }
}
