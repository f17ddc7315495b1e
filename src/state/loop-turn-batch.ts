/** Items per `send` by default. */
const PER_SEND = 256;

interface Pending<T, R> {
  item: T;
  resolve(result: R): void;
  reject(error: unknown): void;
}

export interface LoopTurnBatchOptions {
  /**
   * Items sent per loop turn at most; the rest wait for the next turn, in order (default: all). For a
   * `send` that does its work synchronously (SQLite in this thread), so that a backlog becomes several
   * short stalls with I/O between them, not one long one.
   */
  perTurn?: number;
  /** Items per `send` at most; more in one turn go in several sends (default 256). */
  perSend?: number;
  /**
   * Sends awaiting their answer at most (default: no limit). Calls made while this many are in flight
   * wait, and go together once one answers: the busier the receiver, the bigger its batches, and the
   * fewer messages cross (a worker thread that commits each send in one transaction).
   */
  maxInFlight?: number;
}

function atLeastOne(name: string, value: number): number {
  if (!(value >= 1)) throw new RangeError(`LoopTurnBatch: ${name} must be at least 1 (got ${value})`);
  return value;
}

/**
 * The calls made in one turn of the event loop, handed to `send` together at `setImmediate` (one
 * command and one reply for all of them): at once on a quiet loop, in bigger batches the busier it
 * is. `send` answers one result per item, in order; if it fails, every call of that batch fails.
 */
export class LoopTurnBatch<T, R> {
  #pending: Pending<T, R>[] = [];
  #scheduled = false;
  #inFlight = 0;
  readonly #perTurn: number;
  readonly #perSend: number;
  readonly #maxInFlight: number;

  constructor(
    private readonly send: (items: T[]) => Promise<R[]>,
    options: LoopTurnBatchOptions = {},
  ) {
    this.#perTurn = atLeastOne("perTurn", options.perTurn ?? Number.POSITIVE_INFINITY);
    this.#perSend = atLeastOne("perSend", options.perSend ?? PER_SEND);
    this.#maxInFlight = atLeastOne("maxInFlight", options.maxInFlight ?? Number.POSITIVE_INFINITY);
  }

  call(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#pending.push({ item, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#pending.length === 0 || this.#inFlight >= this.#maxInFlight) return;
    this.#scheduled = true;
    setImmediate(this.#flush);
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    const sends = Math.min(
      Math.ceil(this.#pending.length / this.#perSend),
      this.#maxInFlight - this.#inFlight,
    );
    const count = Math.min(this.#pending.length, this.#perTurn, sends * this.#perSend);
    const taken = count === this.#pending.length ? this.#pending : this.#pending.slice(0, count);
    this.#pending = count === this.#pending.length ? [] : this.#pending.slice(count);
    for (let i = 0; i < taken.length; i += this.#perSend)
      void this.#sendBatch(taken.slice(i, i + this.#perSend));
    this.#schedule(); // what is left: the next turn's (perTurn), or once a send answers (maxInFlight)
  };

  async #sendBatch(batch: Pending<T, R>[]): Promise<void> {
    this.#inFlight += 1;
    try {
      const results = await this.send(batch.map((pending) => pending.item));
      for (const [i, pending] of batch.entries()) pending.resolve(results[i]!);
    } catch (error) {
      for (const pending of batch) pending.reject(error);
    } finally {
      this.#inFlight -= 1;
      this.#schedule();
    }
  }
}
