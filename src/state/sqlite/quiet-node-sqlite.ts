/**
 * Loading `node:sqlite` without its "SQLite is an experimental feature" warning (Node 22 and 23 print
 * it on stderr; 24 does not): the embedded default uses it on purpose, and that line on every CLI
 * command read as a problem. Only that warning is held back; any other goes on as usual.
 */

/** The start of the warning Node emits when `node:sqlite` is first loaded (in each thread). */
export const NODE_SQLITE_WARNING = "SQLite is an experimental feature";

/**
 * The same as JavaScript text, for a worker thread's source (it has no imports): `quietly(load)`
 * runs `load` with the warning held back.
 */
export const QUIET_NODE_SQLITE_SOURCE = `
function quietly(load) {
  const emit = process.emitWarning;
  process.emitWarning = function (warning, ...rest) {
    if (String(warning).startsWith(${JSON.stringify(NODE_SQLITE_WARNING)})) return;
    return emit.call(process, warning, ...rest);
  };
  try {
    return load();
  } finally {
    process.emitWarning = emit;
  }
}
`;

/** `import("node:sqlite")` with the experimental warning held back while it loads. */
export async function importNodeSqlite<T>(): Promise<T> {
  const emit = process.emitWarning;
  const quiet = (warning: string | Error, ...rest: unknown[]): void => {
    if (String(warning).startsWith(NODE_SQLITE_WARNING)) return;
    (emit as (warning: string | Error, ...rest: unknown[]) => void).call(process, warning, ...rest);
  };
  process.emitWarning = quiet as typeof process.emitWarning;
  const name = "node:sqlite";
  try {
    return (await import(/* @vite-ignore */ name)) as T;
  } finally {
    if (process.emitWarning === quiet) process.emitWarning = emit;
  }
}
