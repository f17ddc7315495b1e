import { openSqlite, type SqliteDatabase } from "../../src/state/sqlite/sqlite-driver.js";

/**
 * Opens a SQLite file (or `:memory:`) with the driver the stores use in this process: better-sqlite3,
 * or node:sqlite where it is missing or AGENTSCOPE_SQLITE_DRIVER=node. Tests read and damage files
 * through it, so they run on either driver.
 */
export function openTestDatabase(file: string): Promise<SqliteDatabase> {
  return openSqlite(file, "a test");
}

/** The first column of the first row `sql` answers. */
export function scalar(db: SqliteDatabase, sql: string, ...args: (string | number)[]): unknown {
  const row = db.prepare(sql).get(...args) as Record<string, unknown> | undefined;
  return row === undefined ? undefined : Object.values(row)[0];
}
