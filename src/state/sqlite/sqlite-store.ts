import { resolve } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import type { AgentState } from "../agent-state.js";
import { localPath } from "../local-path.js";
import { readListOptions, toPage } from "../session-paging.js";
import { checkTableName, DEFAULT_STATE_TABLE } from "../sql-names.js";
import { assertSessionId } from "../state-codec.js";
import { type CompactionPolicy, type PlannedSave, SaveTracker } from "../state-delta.js";
import type { AgentStateStore, ListOptions, SaveOptions, SessionPage, StoredState } from "../store.js";
import { StateConflictError } from "../store-errors.js";
import { type StoreScheme, splitStoreUrl } from "../store-family.js";
import { ValidatedLoads } from "../validated-loads.js";
import {
  betterSqliteDatabase,
  openSqlite,
  type SqliteDatabase,
  type SqliteStatement,
} from "./sqlite-driver.js";
import type { SqliteWrite, SqliteWriteResult } from "./sqlite-executor.js";
import { createStateTables, stateStatements } from "./sqlite-state-schema.js";
import { SqliteWriter } from "./sqlite-writer.js";

/** Where the embedded default keeps its database, relative to the working directory. */
export const DEFAULT_SQLITE_PATH = ".agentscope/state.db";

export interface SqliteStateStoreOptions {
  /** Database file (`:memory:` for a private in-memory one); default `.agentscope/state.db`. */
  path?: string;
  /**
   * An open database to use instead (left open by `close`): a better-sqlite3 one, or either driver's
   * as `openSqlite` gives it.
   */
  database?: BetterSqlite3.Database | SqliteDatabase;
  /**
   * The writer of `database` to share (the service's, whose writes run in a worker thread), left open
   * by `close`; by default the store writes through its own, in this thread.
   */
  writer?: SqliteWriter;
  table?: string;
  /** How long a write waits for another process's write lock; default 5 s. */
  busyTimeoutMs?: number;
  /** When a save writes the whole state instead of a patch (see CompactionPolicy). */
  compaction?: CompactionPolicy;
}

interface SnapshotRow {
  version: number;
  state: string;
  head: string | null;
}

type StoredPatchRow = { version: number; head: string; patch: string };

type SummaryRow = { session_id: string; version: number; updated_at: number };

interface Statements {
  db: SqliteDatabase;
  /** The snapshot and its patches, read in one read transaction. */
  read: (sessionId: string) => { snapshot?: SnapshotRow; patches: StoredPatchRow[] };
  version: SqliteStatement<[string, string], { version: number }>;
  listFirst: SqliteStatement<[number], SummaryRow>;
  listAfter: SqliteStatement<[string, number], SummaryRow>;
  /** The compare-and-set as a write of the writer's, and how to read its result. */
  casWrite: (sessionId: string, save: PlannedSave, expected: number) => SqliteWrite;
  /** The new version, or StateConflictError. */
  casResult: (sessionId: string, expected: number, changed: SqliteWriteResult) => number;
  writer: SqliteWriter;
  remove: (sessionId: string) => Promise<boolean>;
}

/**
 * The embedded default: SQLite (better-sqlite3 where it is installed, else Node's own `node:sqlite`:
 * see `openSqlite`), in WAL mode. A compare-and-set is one statement
 * that writes only at the expected version, in an IMMEDIATE transaction, so processes sharing the file
 * never lose an update.
 *
 * A save writes what changed (a patch row: the messages from the first that changed, the other fields
 * that changed), not the whole state; a snapshot now and then (CompactionPolicy) replaces the row's
 * state and drops the patches before it. A load reads the snapshot and its patches in one read
 * transaction.
 */
export class SqliteStateStore implements AgentStateStore {
  readonly path: string;
  readonly #options: SqliteStateStoreOptions;
  readonly #table: string;
  readonly #saves: SaveTracker;
  readonly #loads = new ValidatedLoads();
  #ready: Promise<Statements> | undefined;

  constructor(options: SqliteStateStoreOptions | string = {}) {
    this.#options = typeof options === "string" ? { path: options } : options;
    this.#table = checkTableName(this.#options.table ?? DEFAULT_STATE_TABLE);
    this.#saves = new SaveTracker(this.#options.compaction);
    const path = this.#options.path ?? DEFAULT_SQLITE_PATH;
    this.path = path === ":memory:" ? path : resolve(path);
  }

  /** The table of snapshots; the patches are in `<table>_patches`. */
  get table(): string {
    return this.#table;
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
    const given = this.#options.database;
    const db = !given
      ? await openSqlite(this.path, "SqliteStateStore")
      : "driver" in given
        ? given
        : betterSqliteDatabase(given);
    db.exec(`PRAGMA busy_timeout = ${this.#options.busyTimeoutMs ?? 5000}`);
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    createStateTables(db, this.#table);
    const sql = stateStatements(this.#table);
    const loadSnapshot = db.prepare<[string], SnapshotRow>(sql.loadSnapshot);
    const loadPatches = db.prepare<[string], StoredPatchRow>(sql.loadPatches);
    const s = {
      db,
      read: db.transaction((sessionId: string) => ({
        snapshot: loadSnapshot.get(sessionId),
        patches: loadPatches.all(sessionId),
      })),
      version: db.prepare<[string, string], { version: number }>(sql.version),
      listFirst: db.prepare<[number], SummaryRow>(sql.list(false)),
      listAfter: db.prepare<[string, number], SummaryRow>(sql.list(true)),
    } as Omit<Statements, "casWrite" | "casResult" | "writer" | "remove">;
    // Saves go through the writer: every save of one loop turn commits in one transaction, and each
    // compare-and-set is one statement that writes only if the version is the expected one.
    const writer = this.#options.writer ?? new SqliteWriter(db);
    const insert = writer.prepare(sql.insert);
    const snapshot = writer.prepare(sql.snapshot);
    const patch = writer.prepare(sql.patch);
    const remove = writer.prepare(sql.remove);
    const casWrite = (sessionId: string, save: PlannedSave, expected: number): SqliteWrite => {
      const now = Date.now();
      if (expected === 0) return { statement: insert, args: [sessionId, save.json, now, save.head] };
      if (save.kind === "snapshot") {
        return {
          statement: snapshot,
          args: [expected, save.json, save.head, now, sessionId, sessionId, sessionId, expected],
        };
      }
      const args = [sessionId, expected, save.head, save.json, now, save.base];
      return {
        statement: patch,
        args: [...args, sessionId, expected, sessionId, expected, sessionId, expected],
      };
    };
    const casResult = (sessionId: string, expected: number, changed: SqliteWriteResult): number => {
      if (changed === 1) return expected + 1;
      throw new StateConflictError(sessionId, expected, s.version.get(sessionId, sessionId)?.version ?? 0);
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
    const { snapshot, patches } = (await this.#statements()).read(sessionId);
    if (!snapshot) return undefined;
    const state = this.#loads.decode(sessionId, snapshot.state, snapshot.version, patches);
    const version = patches.at(-1)?.version ?? snapshot.version;
    this.#saves.loaded(sessionId, state, {
      version,
      head: patches.at(-1)?.head ?? snapshot.head,
      snapshotChars: snapshot.state.length,
      patchChars: patches.reduce((sum, p) => sum + p.patch.length, 0),
      patches: patches.length,
    });
    return { state, version };
  }

  async save(sessionId: string, state: AgentState, options: SaveOptions): Promise<{ version: number }> {
    const s = await this.#statements();
    const planned = this.#saves.plan(sessionId, state, options);
    const [changed] = await s.writer.write([s.casWrite(sessionId, planned, options.expectedVersion)]);
    if (changed === 1 || planned.kind === "snapshot")
      return { version: s.casResult(sessionId, options.expectedVersion, changed!) };
    // A patch on a base that is not the stored save at this version (the session was deleted and saved
    // again meanwhile): at the expected version the save is due all the same, as a snapshot.
    const version = s.version.get(sessionId, sessionId)?.version ?? 0;
    if (version !== options.expectedVersion)
      throw new StateConflictError(sessionId, options.expectedVersion, version);
    this.#saves.forget(state);
    return this.save(sessionId, state, options);
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
    const s = await this.#statements();
    const planned = this.#saves.plan(sessionId, state, options);
    const expected = options.expectedVersion;
    return {
      write: s.casWrite(sessionId, planned, expected),
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

/**
 * The file of a `sqlite:` URL: `sqlite:./path.db`, `sqlite:///abs/path.db`, `sqlite::memory:`, or
 * undefined for `sqlite:` alone (the default `.agentscope/state.db`).
 */
export function sqliteFileOf(url: string): string | undefined {
  const { rest } = splitStoreUrl(url);
  return rest === "" ? undefined : localPath(rest);
}

/** SQLite: state, event log, run leases and sessions in one file; the bus within one process. */
export const sqliteScheme: StoreScheme = {
  schemes: ["sqlite"],
  example: "sqlite:./path.db",
  async openStore(url, { table }) {
    const store = new SqliteStateStore({ path: sqliteFileOf(url), table });
    await store.init();
    return store;
  },
};
