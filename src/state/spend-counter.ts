/**
 * Atomic spend counters: integer totals per key (micro-dollars or tokens) that every replica of a
 * service adds to at once. A budget reads and adds here; the drivers make each add one atomic step
 * on the server (Redis: a Lua script; PostgreSQL and SQLite: an UPSERT ... RETURNING; MySQL: an
 * UPSERT and a read in one transaction), so two replicas can never both take the last of a limit.
 */
export interface SpendCounter {
  /**
   * Adds `amount` (an integer, may be negative) to `key` and returns the new total. With `limit`, the
   * add happens only if the new total stays at or under it; otherwise nothing changes and `added` is
   * false with the total as it is. `ttlSeconds` lets the key expire (a period's counter).
   * Must be atomic across every client of the same server.
   */
  add(key: string, amount: number, options?: SpendAddOptions): Promise<SpendAddResult>;
  /** The totals of `keys`, in order (0 for a key never added to). */
  read(keys: readonly string[]): Promise<number[]>;
  /** Releases what the counter opened itself (a client it was given stays open). */
  close?(): Promise<void>;
}

export interface SpendAddOptions {
  /** The add is refused when the new total would pass this. */
  limit?: number;
  /** The key expires this many seconds after its first add. */
  ttlSeconds?: number;
}

export interface SpendAddResult {
  added: boolean;
  total: number;
}

/** Checks what every driver requires of an amount: a safe integer. */
export function checkSpendAmount(amount: number): void {
  if (!Number.isSafeInteger(amount)) {
    throw new RangeError(`spend counter: an amount must be a safe integer, got ${String(amount)}`);
  }
}
