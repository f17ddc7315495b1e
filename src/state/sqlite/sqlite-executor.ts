import type { SqliteArg, SqliteDatabase } from "./sqlite-driver.js";

export type { SqliteArg } from "./sqlite-driver.js";

/**
 * One statement to run: the id `SqliteWriter.prepare` gave it, and its arguments. A `guard` (a
 * statement that returns a row, e.g. `SELECT EXISTS (...)`) decides for the rest of its call: when it
 * answers 0 or null, the call's later writes are skipped (each answers null), in the same transaction.
 */
export interface SqliteWrite {
  readonly statement: number;
  readonly args: readonly SqliteArg[];
  readonly guard?: boolean;
}

/**
 * What one write answers: the rows it changed, or for a statement that returns rows (`RETURNING`)
 * the first column of its first row (null for none).
 */
export type SqliteWriteResult = SqliteArg;

/**
 * Calls flattened into one array of scalars, which crosses to a worker thread much cheaper than
 * objects: for each call its number of writes, then for each write its statement id (`-1 - id` for a
 * guard), its number of arguments and the arguments.
 */
export type EncodedCalls = SqliteArg[];

export function encodeCalls(calls: readonly (readonly SqliteWrite[])[]): EncodedCalls {
  const encoded: SqliteArg[] = [];
  for (const writes of calls) {
    encoded.push(writes.length);
    for (const write of writes)
      encoded.push(write.guard ? -1 - write.statement : write.statement, write.args.length, ...write.args);
  }
  return encoded;
}

/** Runs encoded calls in one IMMEDIATE transaction, answering one result per write, in order. */
export interface SqliteExecutor {
  /** Prepares `sql` as the next statement id (0, 1, 2, ... in the order of the calls). */
  prepare(sql: string): void;
  /** A throw (a failing statement) rolls back every call of `encoded`. */
  execute(encoded: EncodedCalls): SqliteWriteResult[];
}

/**
 * The executor as the body of a function of `db`, written once and run either in this thread or in
 * the writer worker (`sqlite-writer-worker.ts`), which gets it as text: the package ships bundled
 * entry points, and a worker file would need an entry of its own. `db` is either driver's database
 * (better-sqlite3's, `node:sqlite`'s, or a `SqliteDatabase`): it needs only `prepare` and `exec`.
 */
export const EXECUTOR_SOURCE = `
  const READS = /^\\s*(select|pragma|with|values|explain)\\b|\\breturning\\b/i;
  const statements = [];
  // a row's first column (better-sqlite3 plucks it itself)
  const firstColumn = (row) => {
    if (row === undefined || row === null || typeof row !== "object") return row ?? null;
    for (const key in row) return row[key];
    return null;
  };
  const runAll = (encoded) => {
    const results = [];
    let i = 0;
    while (i < encoded.length) {
      const writes = encoded[i++];
      let skip = false;
      for (let w = 0; w < writes; w++) {
        const coded = encoded[i++];
        const guard = coded < 0;
        const id = guard ? -1 - coded : coded;
        const prepared = statements[id];
        if (prepared === undefined) throw new RangeError("no prepared statement " + id);
        const count = encoded[i++];
        if (skip) {
          i += count;
          results.push(null);
          continue;
        }
        const args = encoded.slice(i, i + count);
        i += count;
        const { statement, reader, plucked } = prepared;
        const result = !reader
          ? Number(statement.run(...args).changes)
          : plucked
            ? (statement.get(...args) ?? null)
            : firstColumn(statement.get(...args));
        results.push(result);
        if (guard && !result) skip = true;
      }
    }
    return results;
  };
  return {
    prepare(sql) {
      const statement = db.prepare(sql);
      const reader =
        typeof statement.reader === "boolean"
          ? statement.reader
          : typeof statement.columns === "function"
            ? statement.columns().length > 0
            : READS.test(sql);
      const plucked = reader && typeof statement.pluck === "function";
      if (plucked) statement.pluck();
      statements.push({ statement, reader, plucked });
    },
    execute(encoded) {
      // BEGIN IMMEDIATE by hand: the same on both drivers (node:sqlite has no transaction helper)
      db.exec("BEGIN IMMEDIATE");
      try {
        const results = runAll(encoded);
        db.exec("COMMIT");
        return results;
      } catch (error) {
        try { db.exec("ROLLBACK"); } catch {}
        throw error;
      }
    },
  };
`;

/** The executor on `db`, in this thread. */
export function inThreadExecutor(db: SqliteDatabase): SqliteExecutor {
  return new Function("db", EXECUTOR_SOURCE)(db) as SqliteExecutor;
}
