import {
  checkSpendAmount,
  type SpendAddOptions,
  type SpendAddResult,
  type SpendCounter,
} from "../spend-counter.js";
import { checkTableName } from "../sql-names.js";
import type { PgQueryable } from "./postgres-store.js";

export interface PostgresSpendCounterOptions {
  /** A pg Pool or Client (left open by `close`). */
  client: PgQueryable;
  /** The counters' table, created on first use (default `agentscope_spend`). */
  table?: string;
}

/**
 * Spend counters in PostgreSQL, shared by every replica on the same database. An add is one
 * `INSERT ... ON CONFLICT DO UPDATE ... WHERE ... RETURNING`: the row lock makes concurrent adds
 * queue, and the WHERE refuses an add that would pass the limit.
 */
export class PostgresSpendCounter implements SpendCounter {
  readonly #db: PgQueryable;
  readonly #table: string;
  #ready: Promise<void> | undefined;

  constructor(options: PostgresSpendCounterOptions) {
    this.#db = options.client;
    this.#table = checkTableName(options.table ?? "agentscope_spend");
  }

  async add(key: string, amount: number, options: SpendAddOptions = {}): Promise<SpendAddResult> {
    checkSpendAmount(amount);
    await this.#migrate();
    const t = this.#table;
    // An expired row counts as empty: its total and expiry start again.
    const { rows } = await this.#db.query(
      `INSERT INTO ${t} AS t (key, total, expires_at)
         SELECT $1, $2::bigint, now() + make_interval(secs => $4::double precision)
         WHERE $3::bigint IS NULL OR $2::bigint <= $3::bigint
       ON CONFLICT (key) DO UPDATE SET
         total = CASE WHEN t.expires_at <= now() THEN excluded.total ELSE t.total + excluded.total END,
         expires_at = CASE WHEN t.expires_at <= now() THEN excluded.expires_at ELSE t.expires_at END
       WHERE $3::bigint IS NULL
          OR (CASE WHEN t.expires_at <= now() THEN 0 ELSE t.total END) + excluded.total <= $3::bigint
       RETURNING total`,
      [key, amount, options.limit ?? null, options.ttlSeconds ?? null],
    );
    if (rows.length > 0) return { added: true, total: Number(rows[0].total) };
    const [total] = await this.read([key]);
    return { added: false, total: total ?? 0 };
  }

  async read(keys: readonly string[]): Promise<number[]> {
    if (keys.length === 0) return [];
    await this.#migrate();
    const { rows } = await this.#db.query(
      `SELECT key, total FROM ${this.#table}
       WHERE key = ANY($1::text[]) AND (expires_at IS NULL OR expires_at > now())`,
      [keys],
    );
    const totals = new Map(rows.map((row) => [row.key as string, Number(row.total)]));
    return keys.map((key) => totals.get(key) ?? 0);
  }

  #migrate(): Promise<void> {
    this.#ready ??= this.#db
      .query(
        `CREATE TABLE IF NOT EXISTS ${this.#table} (
           key text PRIMARY KEY, total bigint NOT NULL, expires_at timestamptz)`,
      )
      .then(
        () => undefined,
        (error) => {
          // Two replicas creating the table at once: the loser sees the winner's table.
          if (["23505", "42P07"].includes((error as { code?: string }).code ?? "")) return;
          this.#ready = undefined;
          throw error;
        },
      );
    return this.#ready;
  }
}
