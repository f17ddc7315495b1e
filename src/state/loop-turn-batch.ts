/** Items at most per `send`; more in one turn go in several sends. */
const MAX_BATCH = 256;

interface Pending<T, R> {
  item: T;
  resolve(result: R): void;
  reject(error: unknown): void;
}

/**
 * The calls made in one turn of the event loop, handed to `send` together at `setImmediate` (one
 * command and one reply for all of them): at once on a quiet loop, in bigger batches the busier it
 * is. `send` answers one result per item, in order; if it fails, every call of that batch fails.
 */
export class LoopTurnBatch<T, R> {
  #pending: Pending<T, R>[] = [];
  #scheduled = false;

  constructor(private readonly send: (items: T[]) => Promise<R[]>) {}

  call(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#pending.push({ item, resolve, reject });
      if (this.#scheduled) return;
      this.#scheduled = true;
      setImmediate(this.#flush);
    });
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    const pending = this.#pending;
    this.#pending = [];
    for (let i = 0; i < pending.length; i += MAX_BATCH) void this.#sendBatch(pending.slice(i, i + MAX_BATCH));
  };

  async #sendBatch(batch: Pending<T, R>[]): Promise<void> {
    try {
      const results = await this.send(batch.map((pending) => pending.item));
      for (const [i, pending] of batch.entries()) pending.resolve(results[i]!);
    } catch (error) {
      for (const pending of batch) pending.reject(error);
    }
  }
}
