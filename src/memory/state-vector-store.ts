import {
  type Chunk,
  type ChunkRecord,
  type CollectionOptions,
  type DocumentInfo,
  filterConditions,
  InMemoryVectorStore,
  type ListChunksOptions,
  type MetadataFilter,
  matchesFilter,
  RagError,
  type SearchHit,
  type VectorSearchQuery,
  type VectorStore,
} from "../rag/index.js";
import { checkRecords, dimensionMismatch, missingCollection } from "../rag/stores/record-checks.js";
import type { AgentStateStore } from "../state/index.js";
import { StateDocument } from "./state-document.js";

export interface StateVectorStoreOptions {
  /** The metadata key that splits a collection into documents of the state store (default `userId`). */
  partitionKey?: string;
}

interface CollectionDoc {
  dimensions?: number;
}
interface PartitionDoc {
  records: ChunkRecord[];
}

const PREFIX = "memory-vectors/";

/**
 * A rag VectorStore kept in an AgentStateStore, so semantic memory lives wherever the service keeps
 * its state (SQLite, Redis, PostgreSQL, ...) and every replica sees it. A collection is split into
 * one state document per value of `partitionKey` (the user), searched by exact cosine; writes are
 * compare-and-set. Meant for small per-user sets such as memories, not for document corpora.
 * Every record must carry the partition key as a string, and every read and delete must filter on it
 * by equality (a RagError says so otherwise), so one call only ever touches one user's document.
 * `keywordSearch` is not offered.
 */
export class StateVectorStore implements VectorStore {
  readonly kind = "state";
  readonly capabilities = { keyword: false };
  readonly #store: AgentStateStore;
  readonly #key: string;

  constructor(store: AgentStateStore, options: StateVectorStoreOptions = {}) {
    this.#store = store;
    this.#key = options.partitionKey ?? "userId";
  }

  async createCollection(name: string, options: CollectionOptions): Promise<void> {
    await this.#meta(name).update((doc) => {
      if (doc.dimensions !== undefined && doc.dimensions !== options.dimensions) {
        throw dimensionMismatch(name, doc.dimensions, options.dimensions);
      }
      doc.dimensions = options.dimensions;
    });
  }

  async deleteCollection(name: string): Promise<void> {
    const prefix = `${PREFIX}${encodeURIComponent(name)}/`;
    let cursor: string | undefined;
    do {
      const page = await this.#store.list(cursor === undefined ? { limit: 1000 } : { limit: 1000, cursor });
      for (const session of page.sessions) {
        if (session.sessionId.startsWith(prefix)) await this.#store.delete(session.sessionId);
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    await this.#meta(name).delete();
  }

  async hasCollection(name: string): Promise<boolean> {
    return (await this.#meta(name).read()).dimensions !== undefined;
  }

  async upsert(collection: string, records: readonly ChunkRecord[]): Promise<void> {
    await this.#write(collection, records, (current, mine) => {
      const key = (r: ChunkRecord) => `${r.documentId}\u0000${r.chunkIndex}`;
      const replaced = new Set(mine.map(key));
      return [...current.filter((r) => !replaced.has(key(r))), ...mine];
    });
  }

  async replaceDocument(
    collection: string,
    documentId: string,
    records: readonly ChunkRecord[],
  ): Promise<void> {
    if (records.length === 0) {
      throw new RagError(
        `collection "${collection}": replaceDocument needs records here (use deleteDocument to remove one)`,
      );
    }
    await this.#write(collection, records, (current, mine) => [
      ...current.filter((r) => r.documentId !== documentId),
      ...mine.map((r) => ({ ...r, documentId })),
    ]);
  }

  async deleteDocument(collection: string, documentId: string, filter?: MetadataFilter): Promise<number> {
    await this.#dimensions(collection);
    const doc = this.#partition(collection, this.#partitionOfFilter(filter));
    return doc.update((value) => {
      const before = value.records.length;
      value.records = value.records.filter(
        (r) => r.documentId !== documentId || !matchesFilter(r.metadata, filter),
      );
      return before - value.records.length;
    });
  }

  async search(collection: string, query: VectorSearchQuery): Promise<SearchHit[]> {
    return (await this.#view(collection, query.filter)).search(collection, query);
  }

  async listDocuments(
    collection: string,
    options: { filter?: MetadataFilter } = {},
  ): Promise<DocumentInfo[]> {
    return (await this.#view(collection, options.filter)).listDocuments(collection, options);
  }

  async listChunks(collection: string, options: ListChunksOptions = {}): Promise<Chunk[]> {
    return (await this.#view(collection, options.filter)).listChunks(collection, options);
  }

  async close(): Promise<void> {}

  #meta(collection: string): StateDocument<CollectionDoc> {
    return new StateDocument(
      this.#store,
      `${PREFIX}${encodeURIComponent(collection)}`,
      () => ({}),
      (v) => ({
        ...(v as CollectionDoc),
      }),
    );
  }

  #partition(collection: string, value: string): StateDocument<PartitionDoc> {
    const id = `${PREFIX}${encodeURIComponent(collection)}/${encodeURIComponent(value)}`;
    return new StateDocument(
      this.#store,
      id,
      () => ({ records: [] }),
      (v) => ({
        records: [...((v as PartitionDoc).records ?? [])],
      }),
    );
  }

  async #dimensions(collection: string): Promise<number> {
    const { dimensions } = await this.#meta(collection).read();
    if (dimensions === undefined) throw missingCollection(this.kind, collection);
    return dimensions;
  }

  /** The partition a filter names by equality on the partition key. */
  #partitionOfFilter(filter: MetadataFilter | undefined): string {
    filterConditions(filter);
    const spec = filter?.[this.#key];
    const value = typeof spec === "object" && spec !== null && "$eq" in spec ? spec.$eq : spec;
    if (typeof value !== "string") {
      throw new RagError(
        `the state vector store needs every read and delete filtered by ${this.#key} (equality)`,
      );
    }
    return value;
  }

  /** Writes records grouped by partition, each group with one compare-and-set update. */
  async #write(
    collection: string,
    records: readonly ChunkRecord[],
    merge: (current: ChunkRecord[], mine: ChunkRecord[]) => ChunkRecord[],
  ): Promise<void> {
    checkRecords(collection, await this.#dimensions(collection), records);
    const groups = new Map<string, ChunkRecord[]>();
    for (const record of records) {
      const value = record.metadata[this.#key];
      if (typeof value !== "string") {
        throw new RagError(
          `collection "${collection}": chunk ${record.documentId} needs a string ${this.#key} in its metadata`,
        );
      }
      groups.set(value, [...(groups.get(value) ?? []), structuredClone(record)]);
    }
    for (const [value, mine] of groups) {
      await this.#partition(collection, value).update((doc) => {
        doc.records = merge(doc.records, mine);
      });
    }
  }

  /** One partition loaded into an in-memory store, which answers the read with the rag semantics. */
  async #view(collection: string, filter: MetadataFilter | undefined): Promise<InMemoryVectorStore> {
    const dimensions = await this.#dimensions(collection);
    const { records } = await this.#partition(collection, this.#partitionOfFilter(filter)).read();
    const store = new InMemoryVectorStore();
    await store.createCollection(collection, { dimensions });
    await store.upsert(collection, records);
    return store;
  }
}
