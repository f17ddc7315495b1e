/** A piece of timed work the sweeper runs on every sweep (recovery; later deadlines, schedules). */
export interface SweepJob {
  readonly name: string;
  run(): Promise<void>;
}

/**
 * Runs its jobs once at start, then every `everyMs`, one sweep at a time (a sweep still running when
 * the next falls due makes that one wait for the next tick, never overlap), the jobs of a sweep one
 * after the other. A job that fails is reported to `onError` and the others still run. The timer
 * never keeps the process alive.
 */
export class Sweeper {
  readonly #jobs: SweepJob[] = [];
  #timer: ReturnType<typeof setInterval> | undefined;
  #sweeping: Promise<void> | undefined;
  #stopped = false;

  constructor(
    readonly everyMs: number,
    private readonly onError: (job: SweepJob, error: unknown) => void,
  ) {
    if (!(everyMs > 0 && Number.isFinite(everyMs)))
      throw new RangeError(`Sweeper: everyMs must be a positive finite number (got ${everyMs})`);
  }

  get jobs(): readonly SweepJob[] {
    return this.#jobs;
  }

  register(job: SweepJob): void {
    this.#jobs.push(job);
  }

  /** Sweeps at once, then on the interval; resolves when the first sweep is done. */
  start(): Promise<void> {
    if (this.#stopped || this.#timer || this.#jobs.length === 0) return this.#sweeping ?? Promise.resolve();
    this.#timer = setInterval(() => {
      if (!this.#sweeping) void this.sweep();
    }, this.everyMs);
    this.#timer.unref?.();
    return this.sweep();
  }

  /** Runs every job once now (or answers the sweep in flight). */
  sweep(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    this.#sweeping ??= (async () => {
      try {
        for (const job of this.#jobs) {
          if (this.#stopped) return;
          try {
            await job.run();
          } catch (error) {
            this.onError(job, error);
          }
        }
      } finally {
        this.#sweeping = undefined;
      }
    })();
    return this.#sweeping;
  }

  /** No more sweeps (the one in flight ends after its current job); resolves once it has. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#sweeping;
  }
}
