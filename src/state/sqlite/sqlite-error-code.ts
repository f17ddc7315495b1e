/**
 * SQLite's result codes by number, named as better-sqlite3 names them in `error.code` (node:sqlite
 * says `ERR_SQLITE_ERROR` and gives the number as `errcode`). The extended codes a store meets, then
 * the primary ones (the low byte of any extended code).
 */
const NAMES: Record<number, string> = {
  1: "SQLITE_ERROR",
  2: "SQLITE_INTERNAL",
  3: "SQLITE_PERM",
  4: "SQLITE_ABORT",
  5: "SQLITE_BUSY",
  6: "SQLITE_LOCKED",
  7: "SQLITE_NOMEM",
  8: "SQLITE_READONLY",
  9: "SQLITE_INTERRUPT",
  10: "SQLITE_IOERR",
  11: "SQLITE_CORRUPT",
  13: "SQLITE_FULL",
  14: "SQLITE_CANTOPEN",
  15: "SQLITE_PROTOCOL",
  17: "SQLITE_SCHEMA",
  18: "SQLITE_TOOBIG",
  19: "SQLITE_CONSTRAINT",
  20: "SQLITE_MISMATCH",
  21: "SQLITE_MISUSE",
  25: "SQLITE_RANGE",
  26: "SQLITE_NOTADB",
  261: "SQLITE_BUSY_RECOVERY",
  262: "SQLITE_LOCKED_SHAREDCACHE",
  517: "SQLITE_BUSY_SNAPSHOT",
  773: "SQLITE_BUSY_TIMEOUT",
  787: "SQLITE_CONSTRAINT_FOREIGNKEY",
  1299: "SQLITE_CONSTRAINT_NOTNULL",
  1555: "SQLITE_CONSTRAINT_PRIMARYKEY",
  2067: "SQLITE_CONSTRAINT_UNIQUE",
  275: "SQLITE_CONSTRAINT_CHECK",
};

/**
 * Gives a node:sqlite error the code better-sqlite3 would have given it (`SQLITE_BUSY`,
 * `SQLITE_CONSTRAINT_PRIMARYKEY`, ...), so callers that tell errors apart by code (a busy database is
 * an outage, a duplicate key is a conflict) need not know the driver. As text, for the worker threads.
 */
export const SQLITE_CODE_SOURCE = `
const SQLITE_NAMES = ${JSON.stringify(NAMES)};
function withSqliteCode(error) {
  if (error && error.code === "ERR_SQLITE_ERROR" && typeof error.errcode === "number")
    error.code = SQLITE_NAMES[error.errcode] || SQLITE_NAMES[error.errcode & 255] || "SQLITE_UNKNOWN";
  return error;
}
`;

/** `SQLITE_CODE_SOURCE`'s function, in this thread. */
export const withSqliteCode = new Function(`${SQLITE_CODE_SOURCE}; return withSqliteCode;`)() as <T>(
  error: T,
) => T;
