/**
 * Opens a connection once for every caller: concurrent callers share one attempt, and a failed attempt
 * is forgotten so the next call tries again (a server that was down at first is picked up later).
 */
export class OpenOnce<T> {
  #ready: Promise<T> | undefined;

  constructor(private readonly open: () => Promise<T>) {}

  get(): Promise<T> {
    this.#ready ??= this.open().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  /** Forgets the connection (after the store closed it). */
  reset(): void {
    this.#ready = undefined;
  }
}
