import { StateDocument } from "../../../memory/index.js";
import type { EmbeddingModel } from "../../../model/embedding.js";
import type { IndexJob, IndexJobStatus, KnowledgeBaseInfo } from "../../../protocol/knowledge-types.js";
import { KnowledgeBase, type ReaderPool, sharedReaderPool, type VectorStore } from "../../../rag/index.js";
import { type AgentStateStore, InMemoryStateStore } from "../../../state/index.js";
import { RequestError } from "../request-error.js";
import { IndexingQueue } from "./indexing-queue.js";

export interface KnowledgeServiceOptions {
  embedding: EmbeddingModel;
  store: VectorStore;
  /** One collection holds every user's bases, each scoped by `{ user, kb }`; default `knowledge`. */
  collection?: string;
  /** Largest uploaded file; default 20 MiB. */
  maxUploadBytes?: number;
  /**
   * Where each user's list of bases is kept (one state document per user, compare-and-set, so every
   * replica sharing the store sees the same list and it survives a restart); default in process.
   */
  registry?: AgentStateStore;
  /**
   * Where uploads are read: worker threads under time and memory limits (default one pool for the
   * process, see ReaderPool), or `false` to read in this thread (tests, trusted documents only).
   */
  readerPool?: ReaderPool | false;
  /**
   * Documents indexed at once over all users; each user has at most one in flight and users take
   * turns (round-robin), so one user's uploads never hold up another's. Default 4.
   */
  maxConcurrentIndexing?: number;
}

export type { IndexJob, IndexJobStatus, KnowledgeBaseInfo };

const NAME = /^[\w.-]{1,64}$/;

interface RegistryDoc {
  bases: Record<string, KnowledgeBaseInfo>;
}

function parseRegistry(value: unknown): RegistryDoc {
  const bases = (value as { bases?: unknown } | null)?.bases;
  if (typeof bases !== "object" || bases === null)
    throw new Error("knowledge base registry: no bases record");
  return { bases: bases as Record<string, KnowledgeBaseInfo> };
}

/**
 * Knowledge bases per user for the service: each user's bases live in one shared collection, scoped
 * by `{ user, kb }` (so no user can read another's), and uploads are indexed in the background, one
 * job per file, with progress listeners: read in worker threads (ReaderPool), one job in flight per
 * user, users served in turn (IndexingQueue). The list of each user's bases is kept in `registry`.
 */
export class KnowledgeService {
  readonly maxUploadBytes: number;
  readonly #options: KnowledgeServiceOptions;
  readonly #registry: AgentStateStore;
  readonly #jobs = new Map<
    string,
    { user: string; job: IndexJob; listeners: Set<(job: IndexJob) => void>; done: Promise<void> }
  >();
  #nextJob = 1;
  readonly #queue: IndexingQueue;
  readonly #pool: ReaderPool | undefined;

  constructor(options: KnowledgeServiceOptions) {
    this.#options = options;
    this.#queue = new IndexingQueue(options.maxConcurrentIndexing ?? 4);
    this.#pool = options.readerPool === false ? undefined : (options.readerPool ?? sharedReaderPool());
    this.maxUploadBytes = options.maxUploadBytes ?? 20 * 1024 * 1024;
    this.#registry = options.registry ?? new InMemoryStateStore();
  }

  async create(user: string, name: string, description = ""): Promise<KnowledgeBaseInfo> {
    if (!NAME.test(name))
      throw new RequestError("invalid_request", "name: letters, digits, _, . or - (at most 64)");
    const info = { name, description, createdAt: new Date().toISOString() };
    await this.#registryOf(user).update((doc) => {
      if (Object.hasOwn(doc.bases, name))
        throw new RequestError("conflict", `knowledge base ${name} already exists`);
      doc.bases[name] = info;
    });
    return info;
  }

  async list(user: string): Promise<KnowledgeBaseInfo[]> {
    return Object.values((await this.#registryOf(user).read()).bases);
  }

  /** The user's base by name (a 404 when the user has none by that name). */
  async base(user: string, name: string): Promise<KnowledgeBase> {
    const { bases } = await this.#registryOf(user).read();
    const info = Object.hasOwn(bases, name) ? bases[name] : undefined;
    if (!info) throw new RequestError("not_found", `no knowledge base ${name}`);
    return this.#open(user, info);
  }

  /**
   * The user's bases with these names (those the user has; others are skipped), or all of them.
   * Only ever this user's: the bases are scoped by `{ user, kb }`.
   */
  async bases(user: string, names: readonly string[] | "all"): Promise<KnowledgeBase[]> {
    const { bases } = await this.#registryOf(user).read();
    const wanted = names === "all" ? Object.keys(bases) : names.filter((name) => Object.hasOwn(bases, name));
    return wanted.map((name) => this.#open(user, bases[name]!));
  }

  async remove(user: string, name: string): Promise<void> {
    const base = await this.base(user, name);
    for (const doc of await base.listDocuments()) await base.deleteDocument(doc.documentId);
    await this.#registryOf(user).update((doc) => {
      delete doc.bases[name];
    });
  }

  #open(user: string, info: KnowledgeBaseInfo): KnowledgeBase {
    return new KnowledgeBase({
      name: info.name,
      description: info.description,
      embedding: this.#options.embedding,
      store: this.#options.store,
      collection: this.#options.collection ?? "knowledge",
      filter: { user, kb: info.name },
      ...(this.#pool ? { readerPool: this.#pool } : {}),
    });
  }

  #registryOf(user: string): StateDocument<RegistryDoc> {
    return new StateDocument<RegistryDoc>(
      this.#registry,
      `knowledge-bases/${encodeURIComponent(user)}`,
      () => ({ bases: {} }),
      parseRegistry,
    );
  }

  /** Starts indexing one uploaded file in the background; returns its job. */
  async startIndexing(
    user: string,
    name: string,
    file: { name: string; type: string; bytes: Uint8Array },
  ): Promise<IndexJob> {
    const base = await this.base(user, name);
    if (file.bytes.byteLength > this.maxUploadBytes) {
      throw new RequestError("payload_too_large", `${file.name} is larger than ${this.maxUploadBytes} bytes`);
    }
    const job: IndexJob = {
      id: `job_${this.#nextJob++}`,
      knowledgeBase: name,
      documentId: file.name,
      status: "queued",
    };
    const listeners = new Set<(job: IndexJob) => void>();
    const notify = () => {
      for (const listener of listeners) listener({ ...job });
    };
    let finished!: () => void;
    const done = new Promise<void>((resolve) => {
      finished = resolve;
    });
    // Queued per user: the job starts when this user has nothing else indexing and a slot is free.
    this.#queue.add(user, async () => {
      job.status = "indexing";
      notify();
      try {
        const result = await base.insertDocument(
          { source: file.name, bytes: file.bytes, ...(file.type ? { mediaType: file.type } : {}) },
          {
            onProgress: (progress) => {
              job.progress = progress;
              notify();
            },
          },
        );
        job.chunks = result.chunks;
        job.status = "done";
      } catch (error) {
        job.status = "failed";
        job.error = (error as Error).message;
      }
      notify();
      finished();
    });
    this.#jobs.set(job.id, { user, job, listeners, done });
    return { ...job };
  }

  /** A job of this user (404 otherwise). */
  job(user: string, id: string): IndexJob {
    return { ...this.#job(user, id).job };
  }

  /** Calls `listener` on every change of the job until it ends; returns an unsubscribe function. */
  follow(user: string, id: string, listener: (job: IndexJob) => void): () => void {
    const entry = this.#job(user, id);
    entry.listeners.add(listener);
    return () => entry.listeners.delete(listener);
  }

  /** Resolves when the job has finished (done or failed). */
  async settled(user: string, id: string): Promise<IndexJob> {
    const entry = this.#job(user, id);
    await entry.done;
    return { ...entry.job };
  }

  #job(user: string, id: string) {
    const entry = this.#jobs.get(id);
    if (!entry || entry.user !== user) throw new RequestError("not_found", `no indexing job ${id}`);
    return entry;
  }
}
