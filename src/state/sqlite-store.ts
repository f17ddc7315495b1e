import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import type { AgentState } from "./agent-state.js";
import { importDriver } from "./lazy-driver.js";
import { readListOptions, toPage } from "./session-paging.js";
import { checkTableName, DEFAULT_STATE_TABLE } from "./sql-names.js";
import type { SqliteWrite, SqliteWriteResult } from "./sqlite-executor.js";
import { SqliteWriter } from "./sqlite-writer.js";
import { assertSessionId, decodeState, encodeState } from "./state-codec.js";
import type { AgentStateStore, ListOptions, SaveOptions, SessionPage, StoredState } from "./store.js";
import { StateConflictError } from "./store-errors.js";

/** Where the embedded default keeps its database, relative to the working directory. */
export const DEFAULT_SQLITE_PATH = ".agentscope/state.db";

export interface SqliteStateStoreOptions {
  /** Database file (`:memory:` for a private in-memory one); default `.agentscope/state.db`. */
  path?: string;
  /** An open better-sqlite3 database to use instead (left open by `close`). */
  database?: BetterSqlite3.Database;
  /**
   * The writer of `database` to share (the service's, whose writes run in a worker thread), left open
   * by `close`; by default the store writes through its own, in this thread.
   */
  writer?: SqliteWriter;
  table?: string;
  /** How long a write waits for another process's write lock; default 5 s. */
  busyTimeoutMs?: number;
}

interface Row {
  version: number;
  state: string;
  updated_at: number;
}

interface Statements {
  db: BetterSqlite3.Database;
  load: BetterSqlite3.Statement<[string], Row>;
  version: BetterSqlite3.Statement<[string], { version: number }>;
  listFirst: BetterSqlite3.Statement<[number], { session_id: string; version: number; updated_at: number }>;
  listAfter: BetterSqlite3.Statement<
    [string, number],
    { session_id: string; version: number; updated_at: number }
  >;
  /** The compare-and-set as a write of the writer's, and how to read its result. */
  casWrite: (sessionId: string, json: string, expected: number) => SqliteWrite;
  /** The new version, or StateConflictError. */
  casResult: (sessionId: string, expected: number, changed: SqliteWriteResult) => number;
  writer: SqliteWriter;
  remove: (sessionId: string) => Promise<boolean>;
}

/**
 * The embedded default: SQLite through better-sqlite3, in WAL mode. A compare-and-set is one statement
 * that changes the row only at the expected version, in an IMMEDIATE transaction, so processes sharing
 * the file never lose an update.
 */
export class SqliteStateStore implements AgentStateStore {
  readonly path: string;
  readonly #options: SqliteStateStoreOptions;
  readonly #table: string;
  #ready: Promise<Statements> | undefined;

  constructor(options: SqliteStateStoreOptions | string = {}) {
    this.#options = typeof options === "string" ? { path: options } : options;
    this.#table = checkTableName(this.#options.table ?? DEFAULT_STATE_TABLE);
    const path = this.#options.path ?? DEFAULT_SQLITE_PATH;
    this.path = path === ":memory:" ? path : resolve(path);
  }

  /** Opens the database and creates the table; later calls reuse it. Missing driver: MissingDriverError. */
  async init(): Promise<void> {
    await this.#statements();
  }

  #statements(): Promise<Statements> {
    this.#ready ??= this.#open();
    return this.#ready;
  }

  async #open(): Promise<Statements> {
    let db = this.#options.database;
    if (!db) {
      const driver = await importDriver(() => import("better-sqlite3"), "better-sqlite3", "SqliteStateStore");
      const Database = driver.default;
      if (this.path !== ":memory:") mkdirSync(dirname(this.path), { recursive: true });
      db = new Database(this.path);
    }
    db.pragma(`busy_timeout = ${this.#options.busyTimeoutMs ?? 5000}`);
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    const t = this.#table;
    db.exec(
      `CREATE TABLE IF NOT EXISTS ${t} (session_id TEXT PRIMARY KEY, version INTEGER NOT NULL, state TEXT NOT NULL, updated_at INTEGER NOT NULL)`,
    );
    const s = {
      db,
      load: db.prepare<[string], Row>(`SELECT version, state, updated_at FROM ${t} WHERE session_id = ?`),
      version: db.prepare<[string], { version: number }>(`SELECT version FROM ${t} WHERE session_id = ?`),
      listFirst: db.prepare(`SELECT session_id, version, updated_at FROM ${t} ORDER BY session_id LIMIT ?`),
      listAfter: db.prepare(
        `SELECT session_id, version, updated_at FROM ${t} WHERE session_id > ? ORDER BY session_id LIMIT ?`,
      ),
    } as Omit<Statements, "casWrite" | "casResult" | "writer" | "remove">;
    // Saves go through the writer: every save of one loop turn commits in one transaction, and each
    // compare-and-set is one statement that changes a row only if the version is the expected one.
    const writer = this.#options.writer ?? new SqliteWriter(db);
    const insert = writer.prepare(
      `INSERT INTO ${t} (session_id, version, state, updated_at) VALUES (?, 1, ?, ?) ON CONFLICT (session_id) DO NOTHING`,
    );
    const update = writer.prepare(
      `UPDATE ${t} SET version = version + 1, state = ?, updated_at = ? WHERE session_id = ? AND version = ?`,
    );
    const remove = writer.prepare(`DELETE FROM ${t} WHERE session_id = ?`);
    const casWrite = (sessionId: string, json: string, expected: number): SqliteWrite =>
      expected === 0
        ? { statement: insert, args: [sessionId, json, Date.now()] }
        : { statement: update, args: [json, Date.now(), sessionId, expected] };
    const casResult = (sessionId: string, expected: number, changed: SqliteWriteResult): number => {
      if (changed === 1) return expected + 1;
      throw new StateConflictError(sessionId, expected, s.version.get(sessionId)?.version ?? 0);
    };
    return {
      ...s,
      casWrite,
      casResult,
      writer,
      remove: async (sessionId) => {
        return ((await writer.run(remove, sessionId)) as number) > 0;
      },
    };
  }

  async load(sessionId: string): Promise<StoredState | undefined> {
    assertSessionId(sessionId);
    const row = (await this.#statements()).load.get(sessionId);
    return row && { state: decodeState(sessionId, row.state), version: row.version };
  }

  async save(sessionId: string, state: AgentState, options: SaveOptions): Promise<{ version: number }> {
    const { write, result } = await this.saveWrite(sessionId, state, options);
    const [changed] = await (await this.#statements()).writer.write([write]);
    return { version: result(changed!) };
  }

  /**
   * A save as a write of this store's writer, for a caller that commits it in one transaction with
   * writes of its own on the same writer (the service's run end); `result` reads what the write
   * answered: the new version, or StateConflictError. Encoding errors throw here, as `save` rejects.
   */
  async saveWrite(
    sessionId: string,
    state: AgentState,
    options: SaveOptions,
  ): Promise<{ write: SqliteWrite; result: (changed: SqliteWriteResult) => number }> {
    const json = encodeState(sessionId, state, options);
    const s = await this.#statements();
    const expected = options.expectedVersion;
    return {
      write: s.casWrite(sessionId, json, expected),
      result: (changed) => s.casResult(sessionId, expected, changed),
    };
  }

  async delete(sessionId: string): Promise<boolean> {
    assertSessionId(sessionId);
    return (await this.#statements()).remove(sessionId);
  }

  async list(options?: ListOptions): Promise<SessionPage> {
    const { limit, after } = readListOptions(options);
    const s = await this.#statements();
    const rows = after === undefined ? s.listFirst.all(limit + 1) : s.listAfter.all(after, limit + 1);
    return toPage(
      rows.map((r) => ({
        sessionId: r.session_id,
        version: r.version,
        updatedAt: new Date(r.updated_at).toISOString(),
      })),
      limit,
    );
  }

  async close(): Promise<void> {
    const ready = this.#ready;
    this.#ready = undefined;
    if (ready && !this.#options.database) (await ready.catch(() => undefined))?.db.close();
  }
}
