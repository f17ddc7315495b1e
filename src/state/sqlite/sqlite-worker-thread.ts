import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { QUIET_NODE_SQLITE_SOURCE } from "./quiet-node-sqlite.js";
import type { SqliteDriverName } from "./sqlite-driver.js";

/**
 * `source` made to run whatever the process's default module type: text given to a worker with
 * `eval` is a module (no `require`) when the process runs with `--input-type=module`, on its command
 * line or in NODE_OPTIONS. Dynamic `import()` works in both, so the body gets a `require` of its own.
 */
function anyModuleType(source: string): string {
  return `Promise.all([import("node:module"), import("node:worker_threads")]).then((loaded) => {
const require = loaded[0].createRequire(loaded[1].workerData.requireFrom);
{
${source}
}
});`;
}

/**
 * Opens `workerData.file` with `workerData.driver` in a worker: `OPEN_DATABASE_SOURCE` defines
 * `openDatabase(busyTimeoutMs)`, which answers the driver's own database (better-sqlite3's, or
 * `node:sqlite`'s `DatabaseSync`); both take `prepare` and `exec`.
 */
export const OPEN_DATABASE_SOURCE = `${QUIET_NODE_SQLITE_SOURCE}
function openDatabase(busyTimeoutMs) {
  const db = workerData.driver === "node:sqlite"
    ? new (quietly(() => require("node:sqlite")).DatabaseSync)(workerData.file)
    : new (require(workerData.driver))(workerData.file, { fileMustExist: true });
  db.exec("PRAGMA busy_timeout = " + busyTimeoutMs);
  return db;
}
`;

/**
 * A worker thread running `source`, CommonJS text (the package ships bundled entry points, and a
 * worker file would need an entry of its own), with `workerData` plus `driver`: `node:sqlite`, or
 * the path to better-sqlite3. Unreferenced: it does not keep the process alive by itself.
 *
 * The worker inherits this process's flags as Node passes them on: given explicitly, flags a worker
 * cannot take (V8's `--max-old-space-size`, `--trace-gc`, ...) made `new Worker` throw, and with it
 * the SQLite backend's start.
 */
export function startSqliteWorker(
  source: string,
  driverName: SqliteDriverName,
  workerData: Record<string, unknown>,
): Worker {
  const requireFrom = import.meta.url;
  const driver =
    driverName === "node:sqlite" ? driverName : createRequire(requireFrom).resolve("better-sqlite3");
  const worker = new Worker(anyModuleType(source), {
    eval: true,
    workerData: { ...workerData, driver, requireFrom },
  });
  worker.unref();
  return worker;
}
