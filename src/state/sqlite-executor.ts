import type BetterSqlite3 from "better-sqlite3";

/** A value bound to a statement's parameter. */
export type SqliteArg = string | number | bigint | null;

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
 * entry points, and a worker file would need an entry of its own.
 */
export const EXECUTOR_SOURCE = `
  const statements = [];
  const runAll = db.transaction((encoded) => {
    const results = [];
    let i = 0;
    while (i < encoded.length) {
      const writes = encoded[i++];
      let skip = false;
      for (let w = 0; w < writes; w++) {
        const coded = encoded[i++];
        const guard = coded < 0;
        const id = guard ? -1 - coded : coded;
        const statement = statements[id];
        if (statement === undefined) throw new RangeError("no prepared statement " + id);
        const count = encoded[i++];
        if (skip) {
          i += count;
          results.push(null);
          continue;
        }
        const args = encoded.slice(i, i + count);
        i += count;
        const result = statement.reader ? (statement.get(...args) ?? null) : statement.run(...args).changes;
        results.push(result);
        if (guard && !result) skip = true;
      }
    }
    return results;
  });
  return {
    prepare(sql) {
      const statement = db.prepare(sql);
      statements.push(statement.reader ? statement.pluck() : statement);
    },
    execute(encoded) { return runAll.immediate(encoded); },
  };
`;

/** The executor on `db`, in this thread. */
export function inThreadExecutor(db: BetterSqlite3.Database): SqliteExecutor {
  return new Function("db", EXECUTOR_SOURCE)(db) as SqliteExecutor;
}
