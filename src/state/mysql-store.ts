import type { Pool, ResultSetHeader, RowDataPacket } from "mysql2/promise";
import type { AgentState } from "./agent-state.js";
import { importDriver } from "./lazy-driver.js";
import { OpenOnce } from "./open-once.js";
import { redactUrl } from "./redact-url.js";
import { readListOptions, toPage } from "./session-paging.js";
import { checkTableName, DEFAULT_STATE_TABLE } from "./sql-names.js";
import { assertSessionId, decodeState, encodeState } from "./state-codec.js";
import type { AgentStateStore, ListOptions, SaveOptions, SessionPage, StoredState } from "./store.js";
import { StateConflictError } from "./store-errors.js";

/**
 * What the store needs of a mysql2/promise Pool or Connection: `execute` runs load and save as
 * server-side prepared statements (prepared once per connection, then one round trip each).
 */
export interface MySqlQueryable {
  query: Pool["query"];
  execute: Pool["execute"];
}

export interface MySqlStateStoreOptions {
  /** `mysql://` (or `mariadb://`) URL; ignored when `client` is given. */
  url?: string;
  /** A mysql2/promise Pool or Connection to use instead (left open by `close`). */
  client?: MySqlQueryable;
  /** Default `agentscope_state`. */
  table?: string;
}

/**
 * States in MySQL or MariaDB, in a JSON column. Session ids compare byte for byte (utf8mb4_bin), so
 * `a` and `A` are two sessions. Compare-and-set is a single `UPDATE ... WHERE version = ?`; load
 * and save are prepared statements, one round trip each (a conflicting save asks once more for the
 * stored version).
 */
export class MySqlStateStore implements AgentStateStore {
  readonly table: string;
  readonly #options: MySqlStateStoreOptions;
  readonly #connection = new OpenOnce<MySqlQueryable>(() => this.#open());
  #pool: Pool | undefined;

  constructor(options: MySqlStateStoreOptions | string) {
    this.#options = typeof options === "string" ? { url: options } : options;
    this.table = checkTableName(this.#options.table ?? DEFAULT_STATE_TABLE);
  }

  /** Connects and creates the table (once). Missing driver: MissingDriverError. */
  async init(): Promise<void> {
    await this.#db();
  }

  #db(): Promise<MySqlQueryable> {
    return this.#connection.get();
  }

  async #open(): Promise<MySqlQueryable> {
    const createTable = `CREATE TABLE IF NOT EXISTS ${this.table} (
      session_id VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
      version BIGINT NOT NULL,
      state JSON NOT NULL,
      updated_at BIGINT NOT NULL
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`;
    if (this.#options.client) {
      await this.#options.client.query(createTable);
      return this.#options.client;
    }
    const { createPool } = await importDriver(() => import("mysql2/promise"), "mysql2", "MySqlStateStore");
    const url = (this.#options.url ?? "mysql://root@127.0.0.1:3306/test").replace(/^mariadb:/, "mysql:");
    const pool = createPool({ uri: url, charset: "utf8mb4_bin", connectionLimit: 10 });
    try {
      await pool.query(createTable);
    } catch (error) {
      await pool.end().catch(() => {});
      throw new Error(`MySqlStateStore cannot prepare ${redactUrl(url)}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    this.#pool = pool;
    return pool;
  }

  async load(sessionId: string): Promise<StoredState | undefined> {
    assertSessionId(sessionId);
    const db = await this.#db();
    const [rows] = await db.execute<RowDataPacket[]>(
      `SELECT version, state FROM ${this.table} WHERE session_id = ?`,
      [sessionId],
    );
    const row = rows[0];
    return row && { state: decodeState(sessionId, row.state), version: Number(row.version) };
  }

  async save(sessionId: string, state: AgentState, options: SaveOptions): Promise<{ version: number }> {
    const json = encodeState(sessionId, state, options);
    const db = await this.#db();
    const expected = options.expectedVersion;
    let changed: number;
    if (expected === 0) {
      try {
        await db.execute(
          `INSERT INTO ${this.table} (session_id, version, state, updated_at) VALUES (?, 1, ?, ?)`,
          [sessionId, json, Date.now()],
        );
        changed = 1;
      } catch (error) {
        if ((error as { code?: string }).code !== "ER_DUP_ENTRY") throw error;
        changed = 0;
      }
    } else {
      const [result] = await db.execute<ResultSetHeader>(
        `UPDATE ${this.table} SET version = version + 1, state = ?, updated_at = ? WHERE session_id = ? AND version = ?`,
        [json, Date.now(), sessionId, expected],
      );
      changed = result.affectedRows;
    }
    if (changed !== 1) {
      const [rows] = await db.query<RowDataPacket[]>(
        `SELECT version FROM ${this.table} WHERE session_id = ?`,
        [sessionId],
      );
      throw new StateConflictError(sessionId, expected, rows.length ? Number(rows[0]!.version) : 0);
    }
    return { version: expected + 1 };
  }

  async delete(sessionId: string): Promise<boolean> {
    assertSessionId(sessionId);
    const db = await this.#db();
    const [result] = await db.query<ResultSetHeader>(`DELETE FROM ${this.table} WHERE session_id = ?`, [
      sessionId,
    ]);
    return result.affectedRows === 1;
  }

  async list(options?: ListOptions): Promise<SessionPage> {
    const { limit, after } = readListOptions(options);
    const db = await this.#db();
    const where = after === undefined ? "" : "WHERE session_id > ?";
    const params = after === undefined ? [limit + 1] : [after, limit + 1];
    const [rows] = await db.query<RowDataPacket[]>(
      `SELECT session_id, version, updated_at FROM ${this.table} ${where} ORDER BY session_id LIMIT ?`,
      params,
    );
    return toPage(
      rows.map((r) => ({
        sessionId: String(r.session_id),
        version: Number(r.version),
        updatedAt: new Date(Number(r.updated_at)).toISOString(),
      })),
      limit,
    );
  }

  async close(): Promise<void> {
    const pool = this.#pool;
    this.#pool = undefined;
    this.#connection.reset();
    await pool?.end();
  }
}
