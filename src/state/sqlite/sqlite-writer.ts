import { LoopTurnBatch } from "../loop-turn-batch.js";
import type { SqliteDatabase } from "./sqlite-driver.js";
import {
  encodeCalls,
  inThreadExecutor,
  type SqliteArg,
  type SqliteExecutor,
  type SqliteWrite,
  type SqliteWriteResult,
} from "./sqlite-executor.js";
import { SqliteWriterWorker } from "./sqlite-writer-worker.js";

/**
 * Calls per loop turn at most, when the writes run in this thread. SQLite's drivers are synchronous: a
 * backlog of a thousand calls done in one turn stalls every stream for the whole of it, and all their
 * replies then land in one burst. Sliced, each turn commits this many and the loop writes their frames
 * and reads sockets before the next. Much smaller slices cost more commits than they save (measured at
 * 10,000 streams: 16 or 32 per turn saturated the loop; 64 to 256 did not).
 */
const IN_THREAD_PER_TURN = 128;

/**
 * With a worker: one send at a time, the calls made meanwhile going together in the next. The
 * commits are what the worker spends its time on, and each message costs both threads.
 */
const WORKER_BATCHES = { maxInFlight: 1, perSend: 1024 };

export interface SqliteWriterOptions {
  /**
   * Run the writes in a worker thread with its own connection to this file, so that the commits never
   * hold up this thread's event loop. Without it (and for `:memory:`) they run in this thread.
   */
  workerFile?: string;
  /** How long the worker's writes wait for another process's write lock; default 5 s. */
  busyTimeoutMs?: number;
}

/**
 * Every write of one SQLite database, calls made together in one IMMEDIATE transaction (one commit,
 * not one per call): those of one loop turn, or with a worker, those made while its previous
 * transaction ran. A call is a list of writes (`prepare`'s statements and their arguments) that commit
 * together; it answers one result per write. A failing statement fails every call of its
 * transaction: answer a per-call failure (a compare-and-set conflict) as a result.
 *
 * With `workerFile` the writes run in a worker thread; reads stay on the caller's connection, which in
 * WAL mode sees each transaction once its call has answered. If the worker stops, the calls in flight
 * fail and later ones run in this thread.
 */
export class SqliteWriter {
  readonly #db: SqliteDatabase;
  readonly #statements: string[] = [];
  readonly #batch: LoopTurnBatch<readonly SqliteWrite[], SqliteWriteResult[]>;
  #worker: SqliteWriterWorker | undefined;
  #inThread: SqliteExecutor | undefined;

  constructor(db: SqliteDatabase, options: SqliteWriterOptions = {}) {
    this.#db = db;
    const file = options.workerFile;
    if (file !== undefined && file !== ":memory:") {
      this.#worker = new SqliteWriterWorker(db.driver, file, options.busyTimeoutMs ?? 5000, () => {
        this.#worker = undefined;
      });
    }
    this.#batch = new LoopTurnBatch(
      (calls) => this.#send(calls),
      this.#worker ? WORKER_BATCHES : { perTurn: IN_THREAD_PER_TURN },
    );
  }

  /** Whether the writes run in a worker thread (false once a worker has stopped). */
  get inWorker(): boolean {
    return this.#worker?.running === true;
  }

  /** Prepares `sql` (a syntax error throws here) and gives the id that writes name it by. */
  prepare(sql: string): number {
    this.#db.prepare(sql);
    this.#statements.push(sql);
    this.#inThread?.prepare(sql);
    this.#worker?.prepare(sql);
    return this.#statements.length - 1;
  }

  /** Sets a pragma on every connection that writes. */
  pragma(pragma: string): void {
    this.#db.exec(`PRAGMA ${pragma}`);
    this.#worker?.pragma(pragma);
  }

  /** Runs `writes` together, in this loop turn's transaction. */
  write(writes: readonly SqliteWrite[]): Promise<SqliteWriteResult[]> {
    return this.#batch.call(writes);
  }

  /** Runs one statement (a call of one write) and answers its result. */
  async run(statement: number, ...args: SqliteArg[]): Promise<SqliteWriteResult> {
    return (await this.#batch.call([{ statement, args }]))[0]!;
  }

  async #send(calls: (readonly SqliteWrite[])[]): Promise<SqliteWriteResult[][]> {
    const encoded = encodeCalls(calls);
    const results = this.#worker?.running
      ? await this.#worker.execute(encoded)
      : this.#executor().execute(encoded);
    let start = 0;
    return calls.map((writes) => {
      start += writes.length;
      return results.slice(start - writes.length, start);
    });
  }

  #executor(): SqliteExecutor {
    if (!this.#inThread) {
      this.#inThread = inThreadExecutor(this.#db);
      for (const sql of this.#statements) this.#inThread.prepare(sql);
    }
    return this.#inThread;
  }

  /** Waits for the writes in flight and stops the worker; the database is the caller's to close. */
  async close(): Promise<void> {
    await this.#worker?.close();
  }
}
