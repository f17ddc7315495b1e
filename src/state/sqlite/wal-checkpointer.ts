import type { Worker } from "node:worker_threads";
import type { SqliteDriverName } from "./sqlite-driver.js";
import { OPEN_DATABASE_SOURCE, startSqliteWorker } from "./sqlite-worker-thread.js";
import type { SqliteWriter } from "./sqlite-writer.js";

/**
 * SQLite's WAL checkpoints, off the event loop. By default the connection that commits past 1,000
 * WAL pages copies them into the database file and syncs it, right there: better-sqlite3 is
 * synchronous, so under a steady write load the service stalled every stream for tens to hundreds of
 * milliseconds at a time (node:sqlite is synchronous too). Here the service's connection never checkpoints (`wal_autocheckpoint = 0`);
 * a worker thread with its own connection runs a PASSIVE checkpoint (it never blocks a writer) every
 * `everyMs`. If the worker cannot start or dies, the connections that write checkpoint themselves
 * again, so the WAL never grows without bound.
 *
 * The worker is a few lines of CommonJS text (`startSqliteWorker`).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
${OPEN_DATABASE_SOURCE}
const db = openDatabase(5000);
const checkpoint = () => db.exec("PRAGMA wal_checkpoint(PASSIVE)");
const timer = setInterval(checkpoint, workerData.everyMs);
parentPort.once("message", () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

const AUTOCHECKPOINT_PAGES = 1000; // SQLite's default

export class WalCheckpointer {
  readonly #worker: Worker;
  readonly #exited: Promise<void>;
  #closing = false;

  constructor(writer: Pick<SqliteWriter, "pragma">, driver: SqliteDriverName, file: string, everyMs = 1000) {
    this.#worker = startSqliteWorker(WORKER_SOURCE, driver, { file, everyMs });
    writer.pragma("wal_autocheckpoint = 0");
    const fallBack = () => {
      if (!this.#closing) writer.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    };
    this.#worker.once("error", fallBack);
    this.#exited = new Promise((resolve) => this.#worker.once("exit", () => resolve()));
    void this.#exited.then(fallBack);
  }

  /**
   * Runs a last checkpoint in the worker and waits for it to end. The worker is referenced meanwhile:
   * unreferenced, a process with nothing else to do exited before it had, and `close` never resolved.
   */
  async close(): Promise<void> {
    this.#closing = true;
    this.#worker.ref();
    this.#worker.postMessage("stop");
    await this.#exited;
  }
}
