import { filterConditions, matchesFilter } from "../filter.js";
import { bm25Scores, cosineSimilarity, keywordTokens } from "../similarity.js";
import type {
  Chunk,
  ChunkRecord,
  CollectionOptions,
  DocumentInfo,
  KeywordSearchQuery,
  ListChunksOptions,
  MetadataFilter,
  SearchHit,
  VectorSearchQuery,
  VectorStore,
} from "../types.js";
import {
  checkRecords,
  checkTopK,
  checkVector,
  compareChunks,
  dimensionMismatch,
  missingCollection,
  page,
  summariseDocuments,
  toChunk,
} from "./record-checks.js";

interface MemoryCollection {
  dimensions: number;
  /** key `${documentId}\u0000${chunkIndex}` */
  records: Map<string, ChunkRecord>;
}

const keyOf = (documentId: string, chunkIndex: number) => `${documentId}\u0000${chunkIndex}`;

/**
 * Everything in process memory: exact cosine search over every chunk and BM25 keyword search.
 * For tests, demos and small corpora; nothing survives the process.
 */
export class InMemoryVectorStore implements VectorStore {
  readonly kind = "memory";
  readonly capabilities = { keyword: true };
  readonly #collections = new Map<string, MemoryCollection>();

  async createCollection(name: string, options: CollectionOptions): Promise<void> {
    const existing = this.#collections.get(name);
    if (existing) {
      if (existing.dimensions !== options.dimensions)
        throw dimensionMismatch(name, existing.dimensions, options.dimensions);
      return;
    }
    this.#collections.set(name, { dimensions: options.dimensions, records: new Map() });
  }

  async deleteCollection(name: string): Promise<void> {
    this.#collections.delete(name);
  }

  async hasCollection(name: string): Promise<boolean> {
    return this.#collections.has(name);
  }

  async upsert(collection: string, records: readonly ChunkRecord[]): Promise<void> {
    const target = this.#get(collection);
    checkRecords(collection, target.dimensions, records);
    for (const record of records)
      target.records.set(keyOf(record.documentId, record.chunkIndex), structuredClone(record));
  }

  async replaceDocument(
    collection: string,
    documentId: string,
    records: readonly ChunkRecord[],
  ): Promise<void> {
    const target = this.#get(collection);
    checkRecords(collection, target.dimensions, records);
    for (const [key, record] of target.records)
      if (record.documentId === documentId) target.records.delete(key);
    for (const record of records) {
      target.records.set(keyOf(documentId, record.chunkIndex), structuredClone({ ...record, documentId }));
    }
  }

  async deleteDocument(collection: string, documentId: string, filter?: MetadataFilter): Promise<number> {
    const target = this.#get(collection);
    filterConditions(filter);
    let deleted = 0;
    for (const [key, record] of target.records) {
      if (record.documentId === documentId && matchesFilter(record.metadata, filter)) {
        target.records.delete(key);
        deleted++;
      }
    }
    return deleted;
  }

  async search(collection: string, query: VectorSearchQuery): Promise<SearchHit[]> {
    const target = this.#get(collection);
    checkTopK(query.topK);
    checkVector(collection, target.dimensions, query.vector, "the query vector");
    const scored = this.#matching(target, query.filter).map((record) => ({
      record,
      score: cosineSimilarity(query.vector, record.vector),
    }));
    return topHits(scored, query.topK);
  }

  async keywordSearch(collection: string, query: KeywordSearchQuery): Promise<SearchHit[]> {
    const target = this.#get(collection);
    checkTopK(query.topK);
    const records = this.#matching(target, query.filter);
    const scores = bm25Scores(query.text, records.map(tokensOf));
    const scored = records
      .map((record, i) => ({ record, score: scores[i] as number }))
      .filter((hit) => hit.score > 0);
    return topHits(scored, query.topK);
  }

  async listDocuments(
    collection: string,
    options: { filter?: MetadataFilter } = {},
  ): Promise<DocumentInfo[]> {
    return summariseDocuments(this.#sorted(this.#get(collection), options.filter));
  }

  async listChunks(collection: string, options: ListChunksOptions = {}): Promise<Chunk[]> {
    const chunks = this.#sorted(this.#get(collection), options.filter).filter(
      (chunk) => options.documentId === undefined || chunk.documentId === options.documentId,
    );
    return page(chunks, options.offset, options.limit);
  }

  async close(): Promise<void> {
    this.#collections.clear();
  }

  #get(collection: string): MemoryCollection {
    const target = this.#collections.get(collection);
    if (!target) throw missingCollection(this.kind, collection);
    return target;
  }

  #matching(target: MemoryCollection, filter: MetadataFilter | undefined): ChunkRecord[] {
    filterConditions(filter);
    return [...target.records.values()].filter((record) => matchesFilter(record.metadata, filter));
  }

  #sorted(target: MemoryCollection, filter: MetadataFilter | undefined): Chunk[] {
    return this.#matching(target, filter)
      .map((record) => structuredClone(toChunk(record)))
      .sort(compareChunks);
  }
}

/**
 * A record's keyword tokens, computed once per stored record (an upsert stores a new record object,
 * so a changed text is tokenised again) instead of once per query.
 */
const keywordTokenCache = new WeakMap<ChunkRecord, string[]>();
function tokensOf(record: ChunkRecord): string[] {
  let tokens = keywordTokenCache.get(record);
  if (tokens === undefined) {
    tokens = keywordTokens(record.text);
    keywordTokenCache.set(record, tokens);
  }
  return tokens;
}

/**
 * Best first (ties by listing order, so results are deterministic), at most topK. Only the winners
 * are copied out of the store.
 */
function topHits(scored: Array<{ record: ChunkRecord; score: number }>, topK: number): SearchHit[] {
  return scored
    .sort((a, b) => b.score - a.score || compareChunks(a.record, b.record))
    .slice(0, topK)
    .map((hit) => ({ chunk: structuredClone(toChunk(hit.record)), score: hit.score }));
}
