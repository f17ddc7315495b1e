import type { Pool } from "pg";
import { ValidationError } from "../../message/index.js";
import type { AgentState } from "../agent-state.js";
import { importDriver } from "../lazy-driver.js";
import { OpenOnce } from "../open-once.js";
import { redactUrl } from "../redact-url.js";
import { parseServerUrl } from "../server-url.js";
import { readListOptions, toPage } from "../session-paging.js";
import { checkTableName, DEFAULT_STATE_TABLE } from "../sql-names.js";
import { assertSessionId } from "../state-codec.js";
import { type CompactionPolicy, type PlannedSave, SaveTracker } from "../state-delta.js";
import type { AgentStateStore, ListOptions, SaveOptions, SessionPage, StoredState } from "../store.js";
import { StateConflictError } from "../store-errors.js";
import type { StoreScheme } from "../store-family.js";
import { ValidatedLoads } from "../validated-loads.js";

/**
 * A query as pg takes it: `name` makes it a named prepared statement, parsed and planned once per
 * connection and then only bound and executed.
 */
export interface PgQuery {
  name?: string;
  text: string;
  values?: unknown[];
}

/** What the store needs of a pg Pool, Client or PoolClient (both call forms are pg's own). */
export interface PgQueryable {
  // biome-ignore lint/suspicious/noExplicitAny: pg's own row type
  query(query: string | PgQuery, values?: unknown[]): Promise<{ rows: any[]; rowCount: number | null }>;
}

export interface PostgresStateStoreOptions {
  /** `postgres://` URL; ignored when `client` is given. */
  url?: string;
  /** A pg Pool or Client to use instead (left open by `close`). */
  client?: PgQueryable;
  /** Table of states; its migrations are recorded in `<table>_migrations`. Default `agentscope_state`. */
  table?: string;
  /** When a save writes the whole state instead of a patch (see CompactionPolicy). */
  compaction?: CompactionPolicy;
}

/**
 * A save as a statement of the caller's writes it to this store's tables (`table`, `<table>_patches`):
 * - a snapshot (`base` null): `state` is the state's JSON; at expectedVersion 0 a new row (version 1,
 *   `head`, base 1), else the row at expectedVersion gets it (version + 1, `head`, base = the new
 *   version), and the patches up to the new version are deleted;
 * - a patch: `state` is the patch's JSON; the row at expectedVersion whose head is `base` gets version +
 *   1 and `head` (its snapshot left as it is), and the patch goes into `<table>_patches` at the new
 *   version, in the same statement.
 */
export interface PgSave {
  state: string;
  expectedVersion: number;
  head: string;
  base: string | null;
}

/** Schema migrations, applied in order, each exactly once per table (recorded in `<table>_migrations`). */
const MIGRATIONS: Array<{ id: number; name: string; sql: (table: string) => string }> = [
  {
    id: 1,
    name: "create the state table",
    sql: (t) =>
      `CREATE TABLE ${t} (session_id text COLLATE "C" PRIMARY KEY, version bigint NOT NULL, state jsonb NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())`,
  },
  {
    id: 2,
    name: "saves write patches",
    // `state` is the snapshot, saved at version `base` (null: a row saved before, no patches); `head`
    // the last save's id; a session's patches go with its row
    sql: (t) =>
      `ALTER TABLE ${t} ADD COLUMN head text, ADD COLUMN base bigint;
    CREATE TABLE ${t}_patches (session_id text COLLATE "C" NOT NULL REFERENCES ${t} (session_id) ON DELETE CASCADE, version bigint NOT NULL, patch text NOT NULL, PRIMARY KEY (session_id, version))`,
  },
];

/**
 * One query string, so it runs as one transaction on one connection; the advisory lock makes
 * concurrent starts wait for each other instead of racing to create the tables.
 */
function migrationScript(table: string): string {
  const log = `${table}_migrations`;
  const steps = MIGRATIONS.map(
    (m) => `DO $migrate$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM ${log} WHERE id = ${m.id}) THEN
    ${m.sql(table)};
    INSERT INTO ${log} (id, name) VALUES (${m.id}, '${m.name}');
  END IF;
END $migrate$;`,
  );
  return [
    `SELECT pg_advisory_xact_lock(hashtext('agentscope migrations ${table}'));`,
    `CREATE TABLE IF NOT EXISTS ${log} (id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());`,
    ...steps,
  ].join("\n");
}

/**
 * The compare-and-set statements, one round trip each whether the save wins or conflicts: the write
 * in a CTE, and beside it the version the statement's snapshot saw (on a conflict, the version that
 * is stored). `saved` is null when the write did not happen. Parameters: session, JSON (state or
 * patch), expected version, head, base head (patch only).
 */
function saveStatements(table: string): {
  insert: PgQuery;
  snapshot: PgQuery;
  patch: PgQuery;
  load: PgQuery;
} {
  const actual = `(SELECT version FROM ${table} WHERE session_id = $1) AS actual`;
  const patches = `${table}_patches`;
  return {
    insert: {
      name: `agentscope_insert_${table}`,
      text: `WITH w AS (INSERT INTO ${table} (session_id, version, state, updated_at, head, base) VALUES ($1, 1, $2::jsonb, now(), $4, 1) ON CONFLICT (session_id) DO NOTHING RETURNING version) SELECT (SELECT version FROM w) AS saved, ${actual}, $3::bigint AS expected`,
    },
    snapshot: {
      name: `agentscope_snapshot_${table}`,
      text: `WITH w AS (UPDATE ${table} SET version = version + 1, state = $2::jsonb, head = $4, base = version + 1, updated_at = now() WHERE session_id = $1 AND version = $3 RETURNING version),
        d AS (DELETE FROM ${patches} WHERE session_id = $1 AND version <= (SELECT version FROM w))
        SELECT (SELECT version FROM w) AS saved, ${actual}`,
    },
    patch: {
      name: `agentscope_patch_${table}`,
      text: `WITH w AS (UPDATE ${table} SET version = version + 1, head = $4, updated_at = now() WHERE session_id = $1 AND version = $3 AND head = $5 RETURNING version),
        p AS (INSERT INTO ${patches} (session_id, version, patch) SELECT $1, version, $2 FROM w)
        SELECT (SELECT version FROM w) AS saved, ${actual}`,
    },
    load: {
      name: `agentscope_load_${table}`,
      text: `SELECT s.version, s.state::text AS state, s.head, s.base,
        ARRAY(SELECT p.version FROM ${patches} AS p WHERE p.session_id = s.session_id ORDER BY p.version) AS versions,
        ARRAY(SELECT p.patch FROM ${patches} AS p WHERE p.session_id = s.session_id ORDER BY p.version) AS patches
        FROM ${table} AS s WHERE s.session_id = $1`,
    },
  };
}

interface LoadRow {
  version: string;
  state: string;
  head: string | null;
  base: string | null;
  versions: string[];
  patches: string[];
}

/** A planned save as the statements take it. */
function pgSave(planned: PlannedSave, expectedVersion: number): PgSave {
  return {
    state: planned.json,
    expectedVersion,
    head: planned.head,
    base: planned.kind === "patch" ? planned.base : null,
  };
}

/**
 * States in PostgreSQL as JSONB. Migrations run once per table. load and save are named prepared
 * statements and one round trip each: compare-and-set is one `UPDATE ... WHERE version = $n` (or
 * `INSERT ... ON CONFLICT DO NOTHING` for a new session) that also returns the stored version.
 *
 * A save writes what changed: the row's version and head, and a patch row in `<table>_patches` (the
 * row's snapshot, TOASTed, is left as it is); a snapshot now and then (CompactionPolicy) replaces the
 * row's state and deletes the patches before it. A load reads the row and its patches in one query.
 */
export class PostgresStateStore implements AgentStateStore {
  readonly table: string;
  readonly #options: PostgresStateStoreOptions;
  readonly #connection = new OpenOnce<PgQueryable>(() => this.#open());
  #pool: Pool | undefined;
  readonly #statements: ReturnType<typeof saveStatements>;
  readonly #tracker: SaveTracker;
  readonly #loads = new ValidatedLoads();

  constructor(options: PostgresStateStoreOptions | string) {
    this.#options = typeof options === "string" ? { url: options } : options;
    this.table = checkTableName(this.#options.table ?? DEFAULT_STATE_TABLE);
    this.#statements = saveStatements(this.table);
    this.#tracker = new SaveTracker(this.#options.compaction);
  }

  /** Connects and runs pending migrations (once). Missing driver: MissingDriverError. */
  async init(): Promise<void> {
    await this.#db();
  }

  #db(): Promise<PgQueryable> {
    return this.#connection.get();
  }

  async #open(): Promise<PgQueryable> {
    const db = this.#options.client;
    if (!db) {
      const { Pool: PgPool } = await importDriver(() => import("pg"), "pg", "PostgresStateStore");
      const url = this.#options.url ?? "postgres://127.0.0.1:5432/postgres";
      const pool = new PgPool({ connectionString: url });
      pool.on("error", () => {}); // an idle connection dropped: the next query reports it
      try {
        await pool.query(migrationScript(this.table));
      } catch (error) {
        await pool.end().catch(() => {});
        throw new Error(`PostgresStateStore cannot prepare ${redactUrl(url)}: ${(error as Error).message}`, {
          cause: error,
        });
      }
      this.#pool = pool;
      return pool;
    }
    await db.query(migrationScript(this.table));
    return db;
  }

  async #actualVersion(db: PgQueryable, sessionId: string): Promise<number> {
    const { rows } = await db.query(`SELECT version FROM ${this.table} WHERE session_id = $1`, [sessionId]);
    return rows.length ? Number(rows[0].version) : 0;
  }

  async load(sessionId: string): Promise<StoredState | undefined> {
    assertSessionId(sessionId);
    const db = await this.#db();
    const { rows } = await db.query({ ...this.#statements.load, values: [sessionId] });
    const row = rows[0] as LoadRow | undefined;
    if (!row) return undefined;
    const version = Number(row.version);
    const patches = row.versions.map((v, i) => ({ version: Number(v), patch: row.patches[i] }));
    const base = row.base === null ? version : Number(row.base);
    const state = this.#loads.decode(sessionId, row.state, base, patches);
    if ((patches.at(-1)?.version ?? base) !== version) {
      throw new ValidationError(
        `stored AgentState of session ${JSON.stringify(sessionId)}`,
        "version",
        `is ${version}, but the saves stored end at ${patches.at(-1)?.version ?? base}`,
      );
    }
    this.#tracker.loaded(sessionId, state, {
      version,
      head: row.head,
      snapshotChars: row.state.length,
      patchChars: row.patches.reduce((sum, patch) => sum + patch.length, 0),
      patches: patches.length,
    });
    return { state, version };
  }

  async save(sessionId: string, state: AgentState, options: SaveOptions): Promise<{ version: number }> {
    const planned = this.#tracker.plan(sessionId, state, options);
    const db = await this.#db();
    const expected = options.expectedVersion;
    const save = pgSave(planned, expected);
    const statement =
      expected === 0
        ? this.#statements.insert
        : planned.kind === "snapshot"
          ? this.#statements.snapshot
          : this.#statements.patch;
    const values = [sessionId, save.state, expected, save.head, ...(save.base === null ? [] : [save.base])];
    const { rows } = await db.query({ ...statement, values });
    const { saved, actual } = rows[0] as { saved: string | null; actual: string | null };
    if (saved === null && planned.kind === "patch" && Number(actual) === expected) {
      // a patch on a base that is not the stored save at this version (the session was deleted and
      // saved again meanwhile): at the expected version the save is due all the same, as a snapshot
      this.#tracker.forget(state);
      return this.save(sessionId, state, options);
    }
    return { version: await this.#savedVersion(db, sessionId, expected, saved, actual) };
  }

  /** The version a compare-and-set wrote (`saved`), or the StateConflictError it lost with. */
  async #savedVersion(
    db: PgQueryable,
    sessionId: string,
    expected: number,
    saved: unknown,
    actual: unknown,
  ): Promise<number> {
    if (saved !== null && saved !== undefined) return Number(saved);
    // The snapshot can miss a row a concurrent save committed meanwhile: then ask again.
    const stored =
      actual === null || actual === undefined || Number(actual) === expected
        ? await this.#actualVersion(db, sessionId)
        : Number(actual);
    throw new StateConflictError(sessionId, expected, stored);
  }

  /**
   * A save as a part of a caller's statement (the service's log writes: a run's events, its save and
   * its lease in one round trip): a patch of what changed since this store last saved or loaded
   * `state`, or a snapshot (PgSave says how to write either to this store's tables), and `result`,
   * which reads what the statement answered (the version written, or null, and the version it saw
   * stored) as `save` does: the new version, or StateConflictError. Encoding errors throw here.
   */
  saveInput(
    sessionId: string,
    state: AgentState,
    options: SaveOptions,
  ): PgSave & { result(saved: unknown, actual: unknown): Promise<number> } {
    const expected = options.expectedVersion;
    return {
      ...pgSave(this.#tracker.plan(sessionId, state, options), expected),
      result: async (saved, actual) =>
        this.#savedVersion(await this.#db(), sessionId, expected, saved, actual),
    };
  }

  async delete(sessionId: string): Promise<boolean> {
    assertSessionId(sessionId);
    const db = await this.#db();
    const result = await db.query(`DELETE FROM ${this.table} WHERE session_id = $1`, [sessionId]);
    return result.rowCount === 1;
  }

  async list(options?: ListOptions): Promise<SessionPage> {
    const { limit, after } = readListOptions(options);
    const db = await this.#db();
    const { rows } = await db.query(
      `SELECT session_id, version, updated_at FROM ${this.table} WHERE $1::text IS NULL OR session_id > $1 ORDER BY session_id LIMIT $2`,
      [after ?? null, limit + 1],
    );
    return toPage(
      rows.map((r) => ({
        sessionId: r.session_id as string,
        version: Number(r.version),
        updatedAt: new Date(r.updated_at).toISOString(),
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

/** PostgreSQL: state, event log, leases and sessions as tables; LISTEN/NOTIFY between replicas. */
export const postgresScheme: StoreScheme = {
  schemes: ["postgres", "postgresql"],
  example: "postgres://",
  async openStore(url, { table }) {
    const store = new PostgresStateStore({ url: parseServerUrl(url, "the PostgreSQL store"), table });
    await store.init();
    return store;
  },
};
