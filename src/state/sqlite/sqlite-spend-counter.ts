import {
  checkSpendAmount,
  type SpendAddOptions,
  type SpendAddResult,
  type SpendCounter,
} from "../spend-counter.js";
import { checkTableName } from "../sql-names.js";

/** What the counter needs of a better-sqlite3 `Database` (or `node:sqlite`'s `DatabaseSync`). */
export interface SqliteSpendDatabase {
  exec(sql: string): unknown;
  prepare(sql: string): { get(...values: unknown[]): unknown; all(...values: unknown[]): unknown[] };
}

export interface SqliteSpendCounterOptions {
  /** An open database (left open); the processes sharing its file share the counters. */
  database: SqliteSpendDatabase;
  /** The counters' table, created when the counter is made (default `agentscope_spend`). */
  table?: string;
  now?: () => number;
}

/**
 * Spend counters in SQLite, for one machine: an add is one `INSERT ... ON CONFLICT DO UPDATE ...
 * WHERE ... RETURNING` statement, atomic under SQLite's write lock.
 */
export class SqliteSpendCounter implements SpendCounter {
  readonly #add: ReturnType<SqliteSpendDatabase["prepare"]>;
  readonly #read: ReturnType<SqliteSpendDatabase["prepare"]>;
  readonly #now: () => number;

  constructor(options: SqliteSpendCounterOptions) {
    const t = checkTableName(options.table ?? "agentscope_spend");
    const db = options.database;
    this.#now = options.now ?? Date.now;
    db.exec(
      `CREATE TABLE IF NOT EXISTS ${t} (key TEXT PRIMARY KEY, total INTEGER NOT NULL, expires_at INTEGER)`,
    );
    // @lim: the limit or NULL; @expiresAt: a new row's expiry (ms) or NULL.
    this.#add = db.prepare(
      `INSERT INTO ${t} AS t (key, total, expires_at)
         SELECT @key, @amount, @expiresAt WHERE @lim IS NULL OR @amount <= @lim
       ON CONFLICT (key) DO UPDATE SET
         total = CASE WHEN t.expires_at <= @now THEN excluded.total ELSE t.total + excluded.total END,
         expires_at = CASE WHEN t.expires_at <= @now THEN excluded.expires_at ELSE t.expires_at END
       WHERE @lim IS NULL OR (CASE WHEN t.expires_at <= @now THEN 0 ELSE t.total END) + excluded.total <= @lim
       RETURNING total`,
    );
    this.#read = db.prepare(
      `SELECT total FROM ${t} WHERE key = @key AND (expires_at IS NULL OR expires_at > @now)`,
    );
  }

  async add(key: string, amount: number, options: SpendAddOptions = {}): Promise<SpendAddResult> {
    checkSpendAmount(amount);
    const now = this.#now();
    const expiresAt = options.ttlSeconds === undefined ? null : now + options.ttlSeconds * 1000;
    const row = this.#add.get({ key, amount, lim: options.limit ?? null, expiresAt, now }) as
      | { total: number }
      | undefined;
    if (row) return { added: true, total: Number(row.total) };
    const [total] = await this.read([key]);
    return { added: false, total: total ?? 0 };
  }

  async read(keys: readonly string[]): Promise<number[]> {
    const now = this.#now();
    return keys.map((key) =>
      Number((this.#read.get({ key, now }) as { total: number } | undefined)?.total ?? 0),
    );
  }
}
