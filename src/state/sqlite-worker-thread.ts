import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/**
 * This process's flags, for a worker given as CommonJS text: without `--input-type`, which would make
 * it a module (no `require`) when the process was started with `--input-type=module`.
 */
function commonJsExecArgv(): string[] {
  return process.execArgv.filter((flag) => !flag.startsWith("--input-type"));
}

/**
 * A worker thread running `source`, CommonJS text (the package ships bundled entry points, and a
 * worker file would need an entry of its own), with `workerData` plus `driver`: the path to
 * better-sqlite3. Unreferenced: it does not keep the process alive by itself.
 */
export function startSqliteWorker(source: string, workerData: Record<string, unknown>): Worker {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(source, {
    eval: true,
    workerData: { ...workerData, driver },
    execArgv: commonJsExecArgv(),
  });
  worker.unref();
  return worker;
}
