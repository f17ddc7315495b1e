import { availableParallelism } from "node:os";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { DocumentLimitError, DocumentReadError, RagError } from "../errors.js";
import type { Section } from "../types.js";
import type { ReaderInput } from "./reader.js";
import { type ReadReply, rebuildReadError, serveReads } from "./reader-worker.js";
import type { ZipLimits } from "./zip-limits.js";

export interface ReaderPoolOptions {
  /** Worker threads reading at once; default 2 (1 on a one-core machine). */
  size?: number;
  /** A document still being read after this long has its worker terminated; default 60,000 ms. */
  timeoutMs?: number;
  /**
   * The JavaScript heap of each worker, in MB (`resourceLimits.maxOldGenerationSizeMb`); default
   * 512. A read that needs more kills its worker, not the process. Buffers live outside the heap:
   * the zip limits bound what an archive inflates to.
   */
  maxMemoryMb?: number;
  /** Limits of the zip-based readers (.docx, .xlsx, .pptx). */
  zip?: ZipLimits;
}

/** The key of workerData that makes a thread importing this module a reader worker. */
const WORKER_FLAG = "agentscopeReaderWorker";

// A worker started by ReaderPool imports this very module (the file or bundle chunk it is in) and
// serves reads: there is no separate entry file to find once the package is bundled.
if (!isMainThread && parentPort && (workerData as Record<string, unknown> | null)?.[WORKER_FLAG]) {
  serveReads(parentPort, (workerData as { zip: ZipLimits }).zip);
}

/**
 * The worker's entry, as text: imports this module by URL. Only dynamic `import()`, which works
 * whether the process treats eval'd text as CommonJS or as a module. Run from TypeScript sources
 * (tests, `tsx`), the worker registers tsx first: a worker does not inherit the parent's loader.
 */
const WORKER_SOURCE = `import("node:worker_threads").then((threads) => {
  const data = threads.workerData;
  const loader = data.tsx ? import(data.tsx).then((api) => { api.register(); }) : Promise.resolve();
  return loader.then(() => import(data.module));
});`;

interface Task {
  input: ReaderInput;
  resolve: (sections: Section[]) => void;
  reject: (error: Error) => void;
}

/**
 * Reads documents with the built-in readers in worker threads, so a slow or hostile document never
 * blocks the event loop: each read has a time limit (its worker is terminated when it passes) and
 * each worker a heap limit (a read that needs more ends that worker, not the process); a worker that
 * failed is replaced. Reads wait in order when every worker is busy. Idle workers do not keep the
 * process alive. Custom readers (functions) cannot cross into a worker: read those in-process.
 */
export class ReaderPool {
  readonly size: number;
  readonly timeoutMs: number;
  readonly maxMemoryMb: number;
  readonly #zip: ZipLimits;
  readonly #workers = new Set<Worker>();
  readonly #idle: Worker[] = [];
  readonly #waiting: Task[] = [];
  #busy = 0;
  #nextId = 1;
  #closed = false;

  constructor(options: ReaderPoolOptions = {}) {
    this.size = options.size ?? Math.max(1, Math.min(2, availableParallelism()));
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.maxMemoryMb = options.maxMemoryMb ?? 512;
    this.#zip = options.zip ?? {};
    for (const [name, value] of Object.entries({
      size: this.size,
      timeoutMs: this.timeoutMs,
      maxMemoryMb: this.maxMemoryMb,
    })) {
      if (!Number.isInteger(value) || value < 1)
        throw new RagError(`reader pool: ${name} must be a positive integer, got ${value}`);
    }
  }

  /** Reads one document in a worker: its sections, or a DocumentReadError (DocumentLimitError) naming it. */
  read(input: ReaderInput): Promise<Section[]> {
    if (this.#closed) return Promise.reject(new RagError("the reader pool is closed", "internal"));
    return new Promise((resolve, reject) => {
      this.#waiting.push({ input, resolve, reject });
      this.#dispatch();
    });
  }

  /** Ends every worker; reads still waiting or running fail. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const task of this.#waiting.splice(0))
      task.reject(new DocumentReadError(task.input.source, "the reader pool was closed before it was read"));
    await Promise.all([...this.#workers].map((worker) => worker.terminate()));
  }

  #dispatch(): void {
    while (this.#waiting.length > 0 && !this.#closed) {
      const worker = this.#idle.pop() ?? (this.#busy < this.size ? this.#spawn() : undefined);
      if (!worker) return;
      this.#run(worker, this.#waiting.shift() as Task);
    }
  }

  #spawn(): Worker {
    const module = import.meta.url;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        [WORKER_FLAG]: true,
        module,
        tsx: module.endsWith(".ts") ? "tsx/esm/api" : undefined,
        zip: this.#zip,
      },
      resourceLimits: { maxOldGenerationSizeMb: this.maxMemoryMb },
    });
    this.#workers.add(worker);
    worker.on("error", () => {}); // an idle worker's failure: the exit below retires it
    worker.once("exit", () => {
      this.#workers.delete(worker);
      const idle = this.#idle.indexOf(worker);
      if (idle !== -1) this.#idle.splice(idle, 1);
    });
    return worker;
  }

  #run(worker: Worker, task: Task): void {
    const id = this.#nextId++;
    const { source } = task.input;
    this.#busy++;
    worker.ref();
    let settled = false;
    const finish = (keepWorker: boolean, outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      worker.off("message", onMessage);
      worker.off("error", onError);
      worker.off("exit", onExit);
      this.#busy--;
      if (keepWorker && !this.#closed) {
        worker.unref();
        this.#idle.push(worker);
      } else void worker.terminate();
      outcome();
      this.#dispatch();
    };
    const onMessage = (reply: ReadReply) => {
      if (reply.id !== id) return;
      finish(true, () =>
        "error" in reply ? task.reject(rebuildReadError(reply.error)) : task.resolve(reply.sections),
      );
    };
    const onError = (error: Error & { code?: string }) =>
      finish(false, () =>
        task.reject(
          error.code === "ERR_WORKER_OUT_OF_MEMORY"
            ? new DocumentLimitError(
                source,
                "reading it needed more memory",
                "maxMemoryMb",
                this.maxMemoryMb,
                {
                  cause: error,
                },
              )
            : new DocumentReadError(source, `the reader's worker failed: ${error.message}`, { cause: error }),
        ),
      );
    const onExit = (code: number) =>
      finish(false, () =>
        task.reject(new DocumentReadError(source, `the reader's worker stopped (exit code ${code})`)),
      );
    const timer = setTimeout(
      () =>
        finish(false, () =>
          task.reject(
            new DocumentLimitError(
              source,
              `reading it took longer than ${this.timeoutMs} ms`,
              "timeoutMs",
              this.timeoutMs,
            ),
          ),
        ),
      this.timeoutMs,
    );
    worker.on("message", onMessage);
    worker.on("error", onError);
    worker.on("exit", onExit);
    worker.postMessage({ id, input: task.input });
  }
}

let shared: ReaderPool | undefined;

/** One pool for the process, made on first use with the default limits (the service's default). */
export function sharedReaderPool(): ReaderPool {
  shared ??= new ReaderPool();
  return shared;
}
