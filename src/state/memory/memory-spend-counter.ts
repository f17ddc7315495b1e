import {
  checkSpendAmount,
  type SpendAddOptions,
  type SpendAddResult,
  type SpendCounter,
} from "../spend-counter.js";

/** Spend counters in this process's memory: atomic within one process (every add is synchronous). */
export class InMemorySpendCounter implements SpendCounter {
  readonly #totals = new Map<string, { total: number; expiresAt: number | undefined }>();

  constructor(private readonly now: () => number = Date.now) {}

  async add(key: string, amount: number, options: SpendAddOptions = {}): Promise<SpendAddResult> {
    checkSpendAmount(amount);
    const entry = this.#live(key);
    const total = (entry?.total ?? 0) + amount;
    if (options.limit !== undefined && total > options.limit) return { added: false, total: total - amount };
    const expiresAt =
      entry?.expiresAt ??
      (options.ttlSeconds !== undefined ? this.now() + options.ttlSeconds * 1000 : undefined);
    this.#totals.set(key, { total, expiresAt });
    return { added: true, total };
  }

  async read(keys: readonly string[]): Promise<number[]> {
    return keys.map((key) => this.#live(key)?.total ?? 0);
  }

  #live(key: string) {
    const entry = this.#totals.get(key);
    if (entry?.expiresAt !== undefined && entry.expiresAt <= this.now()) {
      this.#totals.delete(key);
      return undefined;
    }
    return entry;
  }
}
