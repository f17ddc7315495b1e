import type { Worker } from "node:worker_threads";
import type { SqliteDriverName } from "./sqlite-driver.js";
import { SQLITE_CODE_SOURCE } from "./sqlite-error-code.js";
import { type EncodedCalls, EXECUTOR_SOURCE, type SqliteWriteResult } from "./sqlite-executor.js";
import { OPEN_DATABASE_SOURCE, startSqliteWorker } from "./sqlite-worker-thread.js";

// The worker dies of what it cannot prepare or set: the drivers' errors lose their message on the
// way to this thread, so it throws a plain Error instead.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const plain = (error) => new Error(String((error && error.message) || error));
${OPEN_DATABASE_SOURCE}
${SQLITE_CODE_SOURCE}
let db;
let executor;
try {
  db = openDatabase(workerData.busyTimeoutMs);
  db.exec("PRAGMA synchronous = NORMAL");
  executor = (function (db) {${EXECUTOR_SOURCE}})(db);
} catch (error) {
  throw plain(error);
}
parentPort.on("message", (message) => {
  if (message.kind === "execute") {
    let reply;
    try {
      reply = { id: message.id, results: executor.execute(message.encoded) };
    } catch (error) {
      withSqliteCode(error);
      reply = { id: message.id, error: { message: String(error && error.message), code: error && error.code } };
    }
    return parentPort.postMessage(reply);
  }
  try {
    if (message.kind === "prepare") executor.prepare(message.sql);
    else if (message.kind === "pragma") db.exec("PRAGMA " + message.pragma);
    else {
      db.close();
      parentPort.close();
    }
  } catch (error) {
    throw plain(error);
  }
});
`;

interface Reply {
  id: number;
  results?: SqliteWriteResult[];
  error?: { message: string; code?: string };
}

interface InFlight {
  resolve(results: SqliteWriteResult[]): void;
  reject(error: Error): void;
}

/**
 * A worker thread with its own connection to a SQLite file, running the writes sent to it in order,
 * each send in one transaction. The worker keeps the process alive only while a send is in flight.
 * If it stops on its own (it failed to start, or threw), every send in flight fails and `onStop`
 * hears why; the caller then writes in its own thread.
 */
export class SqliteWriterWorker {
  readonly #worker: Worker;
  readonly #inFlight = new Map<number, InFlight>();
  readonly #exited: Promise<void>;
  #nextId = 0;
  #idle: (() => void) | undefined;
  #stopping = false;
  #stopped = false;

  constructor(
    driver: SqliteDriverName,
    file: string,
    busyTimeoutMs: number,
    onStop: (reason: Error) => void,
  ) {
    this.#worker = startSqliteWorker(WORKER_SOURCE, driver, { file, busyTimeoutMs });
    this.#worker.on("message", (reply: Reply) => this.#settle(reply));
    let failure: Error | undefined;
    this.#worker.once("error", (error: Error) => {
      failure = error;
    });
    this.#exited = new Promise((resolve) => {
      this.#worker.once("exit", (code) => {
        this.#stopped = true;
        if (this.#stopping) return resolve();
        const reason = new Error(
          `the SQLite writer worker stopped (${failure?.message ?? `exit code ${code}`}); writes go on in this thread`,
          { cause: failure },
        );
        for (const pending of this.#inFlight.values()) pending.reject(reason);
        this.#inFlight.clear();
        this.#idle?.();
        onStop(reason);
        resolve();
      });
    });
  }

  /** False once the worker has stopped: send nothing more. */
  get running(): boolean {
    return !this.#stopped && !this.#stopping;
  }

  prepare(sql: string): void {
    this.#worker.postMessage({ kind: "prepare", sql });
  }

  pragma(pragma: string): void {
    this.#worker.postMessage({ kind: "pragma", pragma });
  }

  execute(encoded: EncodedCalls): Promise<SqliteWriteResult[]> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      if (this.#inFlight.size === 0) this.#worker.ref();
      this.#inFlight.set(id, { resolve, reject });
      this.#worker.postMessage({ kind: "execute", id, encoded });
    });
  }

  #settle(reply: Reply): void {
    const pending = this.#inFlight.get(reply.id);
    if (!pending) return;
    this.#inFlight.delete(reply.id);
    if (this.#inFlight.size === 0) {
      this.#worker.unref();
      this.#idle?.();
    }
    if (reply.results) pending.resolve(reply.results);
    else pending.reject(Object.assign(new Error(reply.error?.message), { code: reply.error?.code }));
  }

  /**
   * Waits for the sends in flight, then closes the worker's connection. The worker is referenced until
   * it has: unreferenced, a process with nothing else to do exited first, and `close` never resolved.
   */
  async close(): Promise<void> {
    if (this.#stopping) return this.#exited;
    if (this.#inFlight.size > 0 && !this.#stopped) {
      await new Promise<void>((resolve) => {
        this.#idle = resolve;
      });
    }
    this.#stopping = true;
    if (!this.#stopped) {
      this.#worker.ref();
      this.#worker.postMessage({ kind: "stop" });
    }
    return this.#exited;
  }
}
