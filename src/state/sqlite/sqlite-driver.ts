import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { importDriver } from "../lazy-driver.js";
import { MissingDriverError } from "../store-errors.js";
import { importNodeSqlite } from "./quiet-node-sqlite.js";
import { withSqliteCode } from "./sqlite-error-code.js";

/** A value bound to a statement's parameter. */
export type SqliteArg = string | number | bigint | null;

/** The two drivers: the `better-sqlite3` package (native, faster) and Node's own `node:sqlite`. */
export type SqliteDriverName = "better-sqlite3" | "node:sqlite";

/** What a statement's parameter takes: a scalar, or a blob (a typed array: a vector, bytes). */
export type SqliteValue = SqliteArg | ArrayBufferView;

/**
 * A prepared statement; arguments are positional (`?`). node:sqlite binds every JS number as REAL:
 * pass a bigint where SQLite must see an INTEGER value itself (a virtual table's rowid).
 */
export interface SqliteStatement<Params extends SqliteValue[] = SqliteValue[], Row = unknown> {
  /** Whether it answers rows (SELECT, PRAGMA, RETURNING). */
  readonly reader: boolean;
  run(...args: Params): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...args: Params): Row | undefined;
  all(...args: Params): Row[];
}

/** `fn` in one transaction (BEGIN), or `.immediate` (BEGIN IMMEDIATE: the write lock first). A throw rolls back. */
export interface SqliteTransaction<Args extends unknown[], T> {
  (...args: Args): T;
  immediate(...args: Args): T;
}

/**
 * One SQLite connection, whichever driver opened it: the little of better-sqlite3's API the stores
 * use, which `node:sqlite` is given too. Synchronous, as both drivers are.
 */
export interface SqliteDatabase {
  readonly driver: SqliteDriverName;
  prepare<Params extends SqliteValue[] = SqliteValue[], Row = unknown>(
    sql: string,
  ): SqliteStatement<Params, Row>;
  /** Runs one or more statements, answering nothing (PRAGMAs included). */
  exec(sql: string): void;
  /** Loads a SQLite extension (e.g. sqlite-vec's `load(db)` calls it); only on a database opened with `extensions`. */
  loadExtension(file: string): void;
  transaction<Args extends unknown[], T>(fn: (...args: Args) => T): SqliteTransaction<Args, T>;
  close(): void;
}

/** What `node:sqlite` offers (typed here: the Node 20 types have no such module). */
interface NodeStatementSync {
  run(...args: SqliteValue[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...args: SqliteValue[]): unknown;
  all(...args: SqliteValue[]): unknown[];
  columns?(): unknown[];
}
interface NodeDatabaseSync {
  prepare(sql: string): NodeStatementSync;
  exec(sql: string): void;
  loadExtension(file: string): void;
  close(): void;
}
type NodeSqlite = {
  DatabaseSync: new (path: string, options?: { allowExtension?: boolean }) => NodeDatabaseSync;
};

/** A statement answers rows: for a `node:sqlite` older than `columns()` (Node 22.16), by its text. */
const READS = /^\s*(select|pragma|with|values|explain)\b|\breturning\b/i;

/** better-sqlite3's database seen through the common interface: its own API, nothing in between. */
export function betterSqliteDatabase(db: BetterSqlite3.Database): SqliteDatabase {
  return {
    driver: "better-sqlite3",
    prepare: <Params extends SqliteValue[], Row>(sql: string) =>
      db.prepare<Params, Row>(sql) as unknown as SqliteStatement<Params, Row>,
    exec: (sql) => void db.exec(sql),
    loadExtension: (file) => void db.loadExtension(file),
    transaction: (fn) =>
      db.transaction(fn) as unknown as SqliteTransaction<Parameters<typeof fn>, ReturnType<typeof fn>>,
    close: () => db.close(),
  };
}

/** `call` with a node:sqlite error given better-sqlite3's code (see `withSqliteCode`). */
function coded<T>(call: () => T): T {
  try {
    return call();
  } catch (error) {
    throw withSqliteCode(error);
  }
}

function nodeSqliteDatabase(db: NodeDatabaseSync): SqliteDatabase {
  const inTransaction =
    <Args extends unknown[], T>(begin: string, fn: (...args: Args) => T) =>
    (...args: Args): T => {
      coded(() => db.exec(begin));
      try {
        const result = fn(...args);
        coded(() => db.exec("COMMIT"));
        return result;
      } catch (error) {
        try {
          db.exec("ROLLBACK");
        } catch {
          // SQLite rolled back already (a statement that fails that way ends the transaction)
        }
        throw error;
      }
    };
  let isOpen = true;
  return {
    driver: "node:sqlite",
    prepare: <Params extends SqliteValue[], Row>(sql: string) => {
      const statement = coded(() => db.prepare(sql));
      return {
        reader: statement.columns ? statement.columns().length > 0 : READS.test(sql),
        run: (...args: Params) => coded(() => statement.run(...args)),
        get: (...args: Params) => coded(() => statement.get(...args)) as Row | undefined,
        all: (...args: Params) => coded(() => statement.all(...args)) as Row[],
      };
    },
    exec: (sql) => coded(() => db.exec(sql)),
    loadExtension: (file) => coded(() => db.loadExtension(file)),
    transaction: (fn) =>
      Object.assign(inTransaction("BEGIN", fn), { immediate: inTransaction("BEGIN IMMEDIATE", fn) }),
    // Idempotent, as better-sqlite3's is: node:sqlite throws "database is not open" on a second close.
    close: () => {
      if (!isOpen) return;
      isOpen = false;
      db.close();
    },
  };
}

/** A driver that loaded, and how to open a file with it. */
export interface LoadedSqliteDriver {
  readonly name: SqliteDriverName;
  /** `extensions`: allow `loadExtension` (node:sqlite refuses it otherwise). */
  open(file: string, options?: { extensions?: boolean }): SqliteDatabase;
}

/** What the environment asks for: `AGENTSCOPE_SQLITE_DRIVER=node` (or `node:sqlite`), `better-sqlite3`, or either. */
function requestedDriver(): SqliteDriverName | undefined {
  const asked = process.env.AGENTSCOPE_SQLITE_DRIVER?.trim().toLowerCase();
  if (!asked || asked === "auto") return undefined;
  if (asked === "node" || asked === "node:sqlite") return "node:sqlite";
  if (asked === "better-sqlite3") return "better-sqlite3";
  throw new TypeError(
    `AGENTSCOPE_SQLITE_DRIVER=${asked}: use "node" (Node's built-in node:sqlite), "better-sqlite3" or "auto"`,
  );
}

async function loadBetterSqlite(who: string): Promise<LoadedSqliteDriver> {
  const Database = (await importDriver(() => import("better-sqlite3"), "better-sqlite3", who)).default;
  // The native binary loads on the first `new Database`: a binary built for another Node fails here.
  new Database(":memory:").close();
  return { name: "better-sqlite3", open: (file) => betterSqliteDatabase(new Database(file)) };
}

async function loadNodeSqlite(): Promise<LoadedSqliteDriver> {
  const { DatabaseSync } = await importNodeSqlite<NodeSqlite>();
  return {
    name: "node:sqlite",
    open: (file, options) =>
      nodeSqliteDatabase(new DatabaseSync(file, options?.extensions ? { allowExtension: true } : {})),
  };
}

/** One driver by name, loaded now (for a caller that must use that one: tests, the bench). */
export function loadSqliteDriver(name: SqliteDriverName, who: string): Promise<LoadedSqliteDriver> {
  return name === "node:sqlite"
    ? loadNodeSqlite().catch((error) => Promise.reject(noNodeSqlite(error)))
    : loadBetterSqlite(who);
}

const noNodeSqlite = (cause: unknown) =>
  new Error(
    `Node ${process.version} has no node:sqlite (it is built into Node 22.13 and newer, 22.5 with --experimental-sqlite)`,
    { cause },
  );

/**
 * The SQLite driver, chosen once: better-sqlite3 where it is installed and its native binary loads
 * (the faster one), else Node's built-in `node:sqlite`; `AGENTSCOPE_SQLITE_DRIVER` picks one.
 */
async function chooseDriver(who: string): Promise<LoadedSqliteDriver> {
  const requested = requestedDriver();
  if (requested === "node:sqlite")
    return loadNodeSqlite().catch((error) => Promise.reject(noNodeSqlite(error)));
  if (requested === "better-sqlite3") return loadBetterSqlite(who);
  let betterFailure: unknown;
  try {
    return await loadBetterSqlite(who);
  } catch (error) {
    betterFailure = error;
  }
  try {
    return await loadNodeSqlite();
  } catch {
    if (betterFailure instanceof MissingDriverError) {
      throw new MissingDriverError(
        `${who} on Node ${process.version} (Node 22.13 and newer need nothing)`,
        "better-sqlite3",
        {
          cause: betterFailure,
        },
      );
    }
    throw new Error(
      `${who}: better-sqlite3 is installed but does not load on Node ${process.version} (${(betterFailure as Error).message}); run npm rebuild better-sqlite3, or use Node 22.13 or newer, which has SQLite built in`,
      { cause: betterFailure },
    );
  }
}

let chosen: Promise<LoadedSqliteDriver> | undefined;

/** The process's SQLite driver (see `chooseDriver`); a failure is not kept, so a later call tries again. */
export function sqliteDriver(who: string): Promise<LoadedSqliteDriver> {
  chosen ??= chooseDriver(who).catch((error: unknown) => {
    chosen = undefined;
    throw error;
  });
  return chosen;
}

/** Opens `file` (its folder made first; `:memory:` for a private one) with the process's driver. */
export async function openSqlite(
  file: string,
  who: string,
  options?: { extensions?: boolean },
): Promise<SqliteDatabase> {
  const driver = await sqliteDriver(who);
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  return driver.open(file, options);
}
