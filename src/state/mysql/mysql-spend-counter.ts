import { randomUUID } from "node:crypto";
import type { RowDataPacket } from "mysql2/promise";
import { OpenOnce } from "../open-once.js";
import {
  checkSpendAmount,
  type SpendAddOptions,
  type SpendAddResult,
  type SpendCounter,
} from "../spend-counter.js";
import { checkTableName } from "../sql-names.js";
import type { MySqlQueryable } from "./mysql-pool.js";
import { MySqlTransactions } from "./mysql-transaction.js";

export interface MySqlSpendCounterOptions {
  /** A mysql2/promise Pool or Connection (left open by `close`); on a single connection, adds take turns. */
  client: MySqlQueryable;
  /** The counters' table, created on first use (default `agentscope_spend`). */
  table?: string;
}

/**
 * Keys are stored as their UTF-8 bytes, at most this many (a longer one is refused, never cut): bytes
 * compare exactly, where a text collation would count "a" and "a " as one key.
 */
const MAX_KEY_BYTES = 1024;
/** Deadlock: InnoDB rolled the add back, so it can run again. */
const ER_LOCK_DEADLOCK = 1213;
const ATTEMPTS = 3;
/** The server's clock in UTC, so replicas in any time zone agree on expiry. */
const NOW = "UTC_TIMESTAMP(3)";

/**
 * Spend counters in MySQL or MariaDB, shared by every replica on the same database. Neither has
 * `UPSERT ... RETURNING` (and with FOUND_ROWS, mysql2's default, `affectedRows` is 1 both for an
 * insert and for an update that changed nothing), so an add is a short transaction: one `INSERT ...
 * ON DUPLICATE KEY UPDATE` whose conditions refuse an add that would pass the limit and which marks
 * the row with the add's id when it applies, then a read of the row it holds locked until COMMIT.
 */
export class MySqlSpendCounter implements SpendCounter {
  readonly #db: MySqlQueryable;
  readonly #table: string;
  readonly #ready: OpenOnce<void>;
  readonly #transactions = new MySqlTransactions();

  constructor(options: MySqlSpendCounterOptions) {
    this.#db = options.client;
    const t = checkTableName(options.table ?? "agentscope_spend");
    this.#table = t;
    this.#ready = new OpenOnce(async () => {
      await this.#db.query(`CREATE TABLE IF NOT EXISTS ${t} (
        spend_key VARBINARY(${MAX_KEY_BYTES}) NOT NULL PRIMARY KEY,
        total BIGINT NOT NULL,
        expires_at DATETIME(3) NULL,
        add_id CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NULL
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`);
    });
  }

  async add(key: string, amount: number, options: SpendAddOptions = {}): Promise<SpendAddResult> {
    checkSpendAmount(amount);
    checkKey(key);
    await this.#ready.get();
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#transactions.run(this.#db, always, (connection) =>
          this.#add(connection, key, amount, options),
        );
      } catch (error) {
        if ((error as { errno?: number }).errno !== ER_LOCK_DEADLOCK || attempt === ATTEMPTS) throw error;
      }
    }
  }

  async #add(
    connection: Pick<MySqlQueryable, "query">,
    key: string,
    amount: number,
    { limit, ttlSeconds }: SpendAddOptions,
  ): Promise<SpendAddResult> {
    const t = this.#table;
    const id = randomUUID();
    const lim = limit ?? null;
    const expiresAt = ttlSeconds === undefined ? "NULL" : `${NOW} + INTERVAL ? MICROSECOND`;
    const ttl = ttlSeconds === undefined ? [] : [Math.round(ttlSeconds * 1e6)];
    // An expired row counts as empty: its total and expiry start again. Each assignment reads only
    // columns assigned after it, so it sees the row as it was whether the server assigns left to
    // right (the default) or all at once (MariaDB's SIMULTANEOUS_ASSIGNMENT). An expired row always
    // takes the add: the SELECT already refused an amount past the limit on its own.
    // `query`, not `execute`: the amounts go in as integer literals (mysql2 binds numbers as doubles).
    await connection.query(
      `INSERT INTO ${t} (spend_key, total, expires_at, add_id)
         SELECT ?, ?, ${expiresAt}, ? FROM DUAL WHERE ? IS NULL OR ? <= ?
       ON DUPLICATE KEY UPDATE
         add_id = IF(expires_at <= ${NOW} OR ? IS NULL OR total + ? <= ?, ?, add_id),
         total = IF(expires_at <= ${NOW}, ?, IF(? IS NULL OR total + ? <= ?, total + ?, total)),
         expires_at = IF(expires_at <= ${NOW}, ${expiresAt}, expires_at)`,
      [
        ...[key, amount, ...ttl, id, lim, amount, lim],
        ...[lim, amount, lim, id],
        ...[amount, lim, amount, lim, amount],
        ...ttl,
      ],
    );
    const [rows] = await connection.query<RowDataPacket[]>(
      `SELECT total, add_id = ? AS added, expires_at <= ${NOW} AS expired FROM ${t} WHERE spend_key = ?`,
      [id, key],
    );
    const row = rows[0];
    if (!row) return { added: false, total: 0 };
    const added = Number(row.added) === 1;
    return { added, total: !added && Number(row.expired) === 1 ? 0 : Number(row.total) };
  }

  async read(keys: readonly string[]): Promise<number[]> {
    if (keys.length === 0) return [];
    await this.#ready.get();
    const [rows] = await this.#db.query<RowDataPacket[]>(
      `SELECT spend_key, total FROM ${this.#table}
       WHERE spend_key IN (?) AND (expires_at IS NULL OR expires_at > ${NOW})`,
      [keys],
    );
    const totals = new Map(rows.map((row) => [(row.spend_key as Buffer).toString(), Number(row.total)]));
    return keys.map((key) => totals.get(key) ?? 0);
  }
}

/** An add commits whether it applied or not (a refused one changed nothing). */
const always = () => true;

function checkKey(key: string): void {
  const bytes = Buffer.byteLength(key);
  if (bytes === 0 || bytes > MAX_KEY_BYTES) {
    throw new RangeError(`spend counter: a key must be 1 to ${MAX_KEY_BYTES} bytes of UTF-8, got ${bytes}`);
  }
}
