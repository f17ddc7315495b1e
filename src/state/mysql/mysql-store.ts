import type { Pool, ResultSetHeader, RowDataPacket } from "mysql2/promise";
import { AgentScopeError, ValidationError } from "../../message/index.js";
import type { AgentState } from "../agent-state.js";
import { OpenOnce } from "../open-once.js";
import { parseServerUrl } from "../server-url.js";
import { readListOptions, toPage } from "../session-paging.js";
import { checkTableName, DEFAULT_STATE_TABLE } from "../sql-names.js";
import { assertSessionId } from "../state-codec.js";
import { type CompactionPolicy, type PlannedSave, SaveTracker } from "../state-delta.js";
import type { AgentStateStore, ListOptions, SaveOptions, SessionPage, StoredState } from "../store.js";
import { StateConflictError } from "../store-errors.js";
import type { StoreScheme } from "../store-family.js";
import { decodeStoredState } from "../stored-patches.js";
import { type MySqlQueryable, openMySqlPool } from "./mysql-pool.js";
import { idText, SESSION_ID_TYPE, sameId } from "./mysql-session-id.js";
import { MySqlTransactions } from "./mysql-transaction.js";

export type { MySqlQueryable } from "./mysql-pool.js";

export interface MySqlStateStoreOptions {
  /** `mysql://` (or `mariadb://`) URL; ignored when `client` is given. */
  url?: string;
  /** A mysql2/promise Pool or Connection to use instead (left open by `close`). */
  client?: MySqlQueryable;
  /** Default `agentscope_state`. */
  table?: string;
  /** When a save writes the whole state instead of a patch (see CompactionPolicy). */
  compaction?: CompactionPolicy;
}

/** A save's transaction commits when its compare-and-set won (changed the row). */
const won = (changed: number) => changed === 1;

/** Duplicate column: another process added it first. */
const ER_DUP_FIELDNAME = 1060;

/**
 * States in MySQL or MariaDB, in a JSON column. Session ids compare byte for byte (a VARBINARY key),
 * so `a`, `a ` and `A` are three sessions. A table an earlier version made keys them by a PAD SPACE
 * text column, where `a` and `a ` are one key: every statement also compares the bytes (`sameId`),
 * so no session reads or changes another's row, and the first save of an id its key counts as a
 * stored other one fails, naming both (the table is left as it is: its patches' foreign key stands
 * in the way of converting the column in place). Compare-and-set is a single `UPDATE ... WHERE version = ?`; load
 * is one prepared statement (a conflicting save asks once more for the stored version).
 *
 * A save writes what changed: in one transaction, the row's version and head (`UPDATE ... WHERE
 * version = ? AND head = ?`; the JSON snapshot, stored off the row, is left as it is) and a patch row
 * in `<table>_patches`; a snapshot now and then (CompactionPolicy) replaces the row's state and
 * deletes the patches before it. With a single connection for `client`, saves take turns on it.
 */
export class MySqlStateStore implements AgentStateStore {
  readonly table: string;
  readonly #options: MySqlStateStoreOptions;
  readonly #connection = new OpenOnce<MySqlQueryable>(() => this.#open());
  readonly #tracker: SaveTracker;
  #pool: Pool | undefined;
  readonly #transactions = new MySqlTransactions();

  constructor(options: MySqlStateStoreOptions | string) {
    this.#options = typeof options === "string" ? { url: options } : options;
    this.table = checkTableName(this.#options.table ?? DEFAULT_STATE_TABLE);
    this.#tracker = new SaveTracker(this.#options.compaction);
  }

  /** Connects and creates the tables (once). Missing driver: MissingDriverError. */
  async init(): Promise<void> {
    await this.#db();
  }

  #db(): Promise<MySqlQueryable> {
    return this.#connection.get();
  }

  async #open(): Promise<MySqlQueryable> {
    if (this.#options.client) {
      await this.#createTables(this.#options.client);
      return this.#options.client;
    }
    const pool = await openMySqlPool(this.#options.url, "MySqlStateStore", 10, (db) =>
      this.#createTables(db),
    );
    this.#pool = pool;
    return pool;
  }

  /** The state table (a table made before patches gets `head` and `base`) and its patches' table. */
  async #createTables(db: MySqlQueryable): Promise<void> {
    const t = this.table;
    await db.query(`CREATE TABLE IF NOT EXISTS ${t} (
      session_id ${SESSION_ID_TYPE} NOT NULL PRIMARY KEY,
      version BIGINT NOT NULL,
      state JSON NOT NULL,
      updated_at BIGINT NOT NULL,
      head CHAR(32) NULL,
      base BIGINT NULL
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`);
    const [columns] = await db.query<RowDataPacket[]>(
      "SELECT COLUMN_NAME AS name FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?",
      [t],
    );
    if (!columns.some((column) => String(column.name).toLowerCase() === "head")) {
      try {
        await db.query(`ALTER TABLE ${t} ADD COLUMN head CHAR(32) NULL, ADD COLUMN base BIGINT NULL`);
      } catch (error) {
        if ((error as { errno?: number }).errno !== ER_DUP_FIELDNAME) throw error;
      }
    }
    await db.query(`CREATE TABLE IF NOT EXISTS ${t}_patches (
      session_id ${SESSION_ID_TYPE} NOT NULL,
      version BIGINT NOT NULL,
      patch LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
      PRIMARY KEY (session_id, version),
      FOREIGN KEY (session_id) REFERENCES ${t} (session_id) ON DELETE CASCADE
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`);
  }

  async load(sessionId: string): Promise<StoredState | undefined> {
    assertSessionId(sessionId);
    const db = await this.#db();
    // one statement, so the row and its patches are of one snapshot
    const [rows] = await db.execute<RowDataPacket[]>(
      `SELECT s.version AS version, s.state AS state, s.head AS head, s.base AS base, NULL AS patch FROM ${this.table} AS s WHERE ${sameId("s.session_id")}
       UNION ALL SELECT p.version, NULL, NULL, NULL, p.patch FROM ${this.table}_patches AS p WHERE ${sameId("p.session_id")}
       ORDER BY patch IS NOT NULL, version`,
      [sessionId, sessionId, sessionId, sessionId],
    );
    const row = rows[0];
    if (!row || row.patch !== null) return undefined;
    const version = Number(row.version);
    const base = row.base === null ? version : Number(row.base);
    const patches = rows.slice(1).map((p) => ({ version: Number(p.version), patch: String(p.patch) }));
    const state = decodeStoredState(sessionId, row.state, base, patches);
    const last = patches.at(-1)?.version ?? base;
    if (last !== version) {
      throw new ValidationError(
        `stored AgentState of session ${JSON.stringify(sessionId)}`,
        "version",
        `is ${version}, but the saves stored end at ${last}`,
      );
    }
    this.#tracker.loaded(sessionId, state, {
      version,
      head: row.head === null ? null : String(row.head),
      snapshotChars: typeof row.state === "string" ? row.state.length : JSON.stringify(row.state).length,
      patchChars: patches.reduce((sum, p) => sum + p.patch.length, 0),
      patches: patches.length,
    });
    return { state, version };
  }

  async save(sessionId: string, state: AgentState, options: SaveOptions): Promise<{ version: number }> {
    const planned = this.#tracker.plan(sessionId, state, options);
    const db = await this.#db();
    const expected = options.expectedVersion;
    const changed = await this.#write(db, sessionId, planned, expected);
    if (changed === 1) return { version: expected + 1 };
    // by the key alone: on an earlier version's table it may find an id it counts as this one
    const [rows] = await db.query<RowDataPacket[]>(
      `SELECT session_id, version FROM ${this.table} WHERE session_id = ?`,
      [sessionId],
    );
    const own = rows.find((row) => idText(row.session_id) === sessionId);
    if (!own && rows[0] && expected === 0) throw paddedTwin(sessionId, idText(rows[0].session_id));
    const actual = own ? Number(own.version) : 0;
    if (planned.kind === "patch" && actual === expected) {
      // a patch on a base that is not the stored save at this version (the session was deleted and
      // saved again meanwhile): at the expected version the save is due all the same, as a snapshot
      this.#tracker.forget(state);
      return this.save(sessionId, state, options);
    }
    throw new StateConflictError(sessionId, expected, actual);
  }

  /** Writes the save: the rows it changed (1, or 0 when it lost its compare-and-set). */
  async #write(db: MySqlQueryable, sessionId: string, save: PlannedSave, expected: number): Promise<number> {
    const t = this.table;
    const now = Date.now();
    if (expected === 0) {
      try {
        await db.execute(
          `INSERT INTO ${t} (session_id, version, state, updated_at, head, base) VALUES (?, 1, ?, ?, ?, 1)`,
          [sessionId, save.json, now, save.head],
        );
        return 1;
      } catch (error) {
        if ((error as { code?: string }).code !== "ER_DUP_ENTRY") throw error;
        return 0;
      }
    }
    return this.#transactions.run(db, won, async (connection) => {
      if (save.kind === "snapshot") {
        const [updated] = await connection.execute<ResultSetHeader>(
          `UPDATE ${t} SET version = ?, state = ?, head = ?, base = ?, updated_at = ? WHERE ${sameId("session_id")} AND version = ?`,
          [expected + 1, save.json, save.head, expected + 1, now, sessionId, sessionId, expected],
        );
        if (updated.affectedRows !== 1) return 0;
        await connection.execute(`DELETE FROM ${t}_patches WHERE ${sameId("session_id")} AND version <= ?`, [
          sessionId,
          sessionId,
          expected + 1,
        ]);
        return 1;
      }
      const [updated] = await connection.execute<ResultSetHeader>(
        `UPDATE ${t} SET version = version + 1, head = ?, updated_at = ? WHERE ${sameId("session_id")} AND version = ? AND head = ?`,
        [save.head, now, sessionId, sessionId, expected, save.base],
      );
      if (updated.affectedRows !== 1) return 0;
      await connection.execute(`INSERT INTO ${t}_patches (session_id, version, patch) VALUES (?, ?, ?)`, [
        sessionId,
        expected + 1,
        save.json,
      ]);
      return 1;
    });
  }

  async delete(sessionId: string): Promise<boolean> {
    assertSessionId(sessionId);
    const db = await this.#db();
    const [result] = await db.query<ResultSetHeader>(
      `DELETE FROM ${this.table} WHERE ${sameId("session_id")}`,
      [sessionId, sessionId],
    );
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
        sessionId: idText(r.session_id),
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

/** An earlier version's table (PAD SPACE ids) holds `stored`, which its key counts as `sessionId`. */
function paddedTwin(sessionId: string, stored: string): AgentScopeError {
  return new AgentScopeError({
    type: "conflict",
    source: "state",
    message: `cannot save session ${JSON.stringify(sessionId)}: this table was made by an earlier version, whose session_id column ignores trailing spaces and counts it as the same id as the stored session ${JSON.stringify(stored)}; use another id, or convert the table to byte-exact ids (docs/service.md#store-backends, "MySQL session ids")`,
  });
}

/** MySQL and MariaDB: agent state only (see `noBackend`). */
export const mysqlScheme: StoreScheme & { noBackend: string } = {
  schemes: ["mysql", "mariadb"],
  example: "mysql://",
  async openStore(url, { table }) {
    const store = new MySqlStateStore({ url: parseServerUrl(url, "the MySQL store"), table });
    await store.init();
    return store;
  },
  noBackend:
    "MySQL keeps agent state (createStateStore) but cannot back the service: the service's replicas wake each other through the store (PostgreSQL LISTEN/NOTIFY, Redis pub/sub), MySQL has no such notification, and this version has no polling event log, run leases or session directory for it",
};
