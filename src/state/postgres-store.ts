import type { Pool } from "pg";
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
}

/** Schema migrations, applied in order, each exactly once per table (recorded in `<table>_migrations`). */
const MIGRATIONS: Array<{ id: number; name: string; sql: (table: string) => string }> = [
  {
    id: 1,
    name: "create the state table",
    sql: (t) =>
      `CREATE TABLE ${t} (session_id text COLLATE "C" PRIMARY KEY, version bigint NOT NULL, state jsonb NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())`,
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
 * is stored). `saved` is null when the write did not happen.
 */
function saveStatements(table: string): { insert: PgQuery; update: PgQuery; load: PgQuery } {
  const actual = `(SELECT version FROM ${table} WHERE session_id = $1) AS actual`;
  return {
    insert: {
      name: `agentscope_insert_${table}`,
      text: `WITH w AS (INSERT INTO ${table} (session_id, version, state, updated_at) VALUES ($1, 1, $2::jsonb, now()) ON CONFLICT (session_id) DO NOTHING RETURNING version) SELECT (SELECT version FROM w) AS saved, ${actual}`,
    },
    update: {
      name: `agentscope_update_${table}`,
      text: `WITH w AS (UPDATE ${table} SET version = version + 1, state = $2::jsonb, updated_at = now() WHERE session_id = $1 AND version = $3 RETURNING version) SELECT (SELECT version FROM w) AS saved, ${actual}`,
    },
    load: {
      name: `agentscope_load_${table}`,
      text: `SELECT version, state::text AS state FROM ${table} WHERE session_id = $1`,
    },
  };
}

/**
 * States in PostgreSQL as JSONB. Migrations run once per table. load and save are named prepared
 * statements and one round trip each: compare-and-set is one `UPDATE ... WHERE version = $n` (or
 * `INSERT ... ON CONFLICT DO NOTHING` for a new session) that also returns the stored version.
 */
export class PostgresStateStore implements AgentStateStore {
  readonly table: string;
  readonly #options: PostgresStateStoreOptions;
  readonly #connection = new OpenOnce<PgQueryable>(() => this.#open());
  #pool: Pool | undefined;
  readonly #statements: ReturnType<typeof saveStatements>;

  constructor(options: PostgresStateStoreOptions | string) {
    this.#options = typeof options === "string" ? { url: options } : options;
    this.table = checkTableName(this.#options.table ?? DEFAULT_STATE_TABLE);
    this.#statements = saveStatements(this.table);
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
    if (!rows.length) return undefined;
    return { state: decodeState(sessionId, rows[0].state), version: Number(rows[0].version) };
  }

  async save(sessionId: string, state: AgentState, options: SaveOptions): Promise<{ version: number }> {
    const json = encodeState(sessionId, state, options);
    const db = await this.#db();
    const expected = options.expectedVersion;
    const { rows } =
      expected === 0
        ? await db.query({ ...this.#statements.insert, values: [sessionId, json] })
        : await db.query({ ...this.#statements.update, values: [sessionId, json, expected] });
    const { saved, actual } = rows[0] as { saved: string | null; actual: string | null };
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
   * its lease in one round trip): the encoded state and the version it expects, for the caller's
   * compare-and-set on this store's table (`table`); `result` reads what the statement answered (the
   * version written, or null, and the version it saw stored) as `save` does: the new version, or
   * StateConflictError. Encoding errors throw here.
   */
  saveInput(
    sessionId: string,
    state: AgentState,
    options: SaveOptions,
  ): { state: string; expectedVersion: number; result(saved: unknown, actual: unknown): Promise<number> } {
    const json = encodeState(sessionId, state, options);
    const expected = options.expectedVersion;
    return {
      state: json,
      expectedVersion: expected,
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
