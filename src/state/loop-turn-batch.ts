/** Items at most per `send`; more in one turn go in several sends. */
const MAX_BATCH = 256;

interface Pending<T, R> {
  item: T;
  resolve(result: R): void;
  reject(error: unknown): void;
}

export interface LoopTurnBatchOptions {
  /**
   * Items sent per loop turn at most; the rest wait for the next turn, in order (default: all, in
   * sends of 256). For a `send` that does its work synchronously (SQLite), so that a backlog becomes
   * several short stalls with I/O between them, not one long one.
   */
  perTurn?: number;
}

/**
 * The calls made in one turn of the event loop, handed to `send` together at `setImmediate` (one
 * command and one reply for all of them): at once on a quiet loop, in bigger batches the busier it
 * is. `send` answers one result per item, in order; if it fails, every call of that batch fails.
 */
export class LoopTurnBatch<T, R> {
  #pending: Pending<T, R>[] = [];
  #scheduled = false;
  readonly #perTurn: number;

  constructor(
    private readonly send: (items: T[]) => Promise<R[]>,
    options: LoopTurnBatchOptions = {},
  ) {
    const perTurn = options.perTurn ?? Number.POSITIVE_INFINITY;
    if (!(perTurn >= 1)) throw new RangeError(`LoopTurnBatch: perTurn must be at least 1 (got ${perTurn})`);
    this.#perTurn = perTurn;
  }

  call(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#pending.push({ item, resolve, reject });
      if (this.#scheduled) return;
      this.#scheduled = true;
      setImmediate(this.#flush);
    });
  }

  readonly #flush = (): void => {
    let pending = this.#pending;
    if (pending.length > this.#perTurn) {
      this.#pending = pending.slice(this.#perTurn);
      pending = pending.slice(0, this.#perTurn);
      setImmediate(this.#flush); // still scheduled: calls made meanwhile join the rest
    } else {
      this.#pending = [];
      this.#scheduled = false;
    }
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
