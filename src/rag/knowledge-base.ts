import type { EmbeddingModel } from "../model/embedding.js";
import { chunkSections } from "./chunkers/chunk-sections.js";
import type { Chunker } from "./chunkers/chunker.js";
import { RecursiveChunker } from "./chunkers/recursive.js";
import { Embedder, type EmbedderOptions } from "./embedder.js";
import { RagError } from "./errors.js";
import { combineFilters, filterConditions } from "./filter.js";
import { type FusedHit, hitKey, reciprocalRankFusion } from "./rank-fusion.js";
import { documentBytes, readDocument } from "./readers/read-document.js";
import type { Reader, ReaderInput } from "./readers/reader.js";
import type { ReaderPool } from "./readers/reader-pool.js";
import type {
  Chunk,
  DocumentInfo,
  Metadata,
  MetadataFilter,
  Section,
  SectionLocation,
  VectorStore,
} from "./types.js";

export type SearchMode = "vector" | "keyword" | "hybrid";

export interface KnowledgeBaseOptions {
  /** Unique among the bases an agent uses; the agent picks a base by it. */
  name: string;
  /** What the base holds; shown to the model when it chooses a base. */
  description?: string;
  embedding: EmbeddingModel;
  store: VectorStore;
  /** Store collection; default the name. Several bases (tenants) may share one with `filter`. */
  collection?: string;
  /**
   * Scope (equalities only, e.g. `{ tenant: "acme" }`): ANDed into every read and written onto
   * every chunk, and document ids are kept apart per scope, so bases sharing a collection never see
   * or touch each other's documents.
   */
  filter?: MetadataFilter;
  /** Default: RecursiveChunker (512 approximate tokens, overlap 50). */
  chunker?: Chunker;
  readers?: readonly Reader[];
  /**
   * Reads documents in worker threads (off the event loop, under time and memory limits) with the
   * built-in readers. Ignored when `readers` is given: custom readers run in this thread.
   */
  readerPool?: ReaderPool;
  embedder?: EmbedderOptions;
}

/** What to index: a file path, bytes with a source name, ready sections, or ready chunks. */
export type DocumentInput =
  | string
  | ReaderInput
  | { sections: Section[] }
  | { chunks: (SectionLocation & { text: string; source: string; metadata?: Metadata })[] };

export interface IndexProgress {
  stage: "read" | "chunk" | "embed" | "store" | "done";
  done: number;
  total: number;
}

export interface InsertOptions {
  /** Default: the source (path or name), so indexing the same file again replaces it. */
  documentId?: string;
  /** Copied onto every chunk (under the base's scope, which wins). */
  metadata?: Metadata;
  signal?: AbortSignal;
  onProgress?: (progress: IndexProgress) => void;
}

export interface KnowledgeSearchOptions {
  /** Default 5. */
  topK?: number;
  /** Minimum score of the mode's own scale: cosine (vector and the vector half of hybrid) or BM25 (keyword). */
  scoreThreshold?: number;
  filter?: MetadataFilter;
  /** Default hybrid when the store has keyword search, else vector. */
  mode?: SearchMode;
  signal?: AbortSignal;
}

/** A retrieved chunk, with the base it came from (for citations). */
export interface KnowledgeHit extends FusedHit {
  knowledgeBase: string;
}

const SCOPE_SEPARATOR = "\u241f";

/**
 * Binds the four stages: read, chunk, embed, store. Indexing a document reads, chunks and embeds it
 * fully before the store is touched, then replaces its chunks atomically: a failure leaves the
 * previous version in place, and a document is never half-indexed.
 */
export class KnowledgeBase {
  readonly name: string;
  readonly description: string;
  readonly store: VectorStore;
  readonly collection: string;
  readonly filter: MetadataFilter | undefined;
  readonly embedder: Embedder;
  readonly #chunker: Chunker;
  readonly #readers: readonly Reader[] | undefined;
  readonly #pool: ReaderPool | undefined;
  readonly #scope: Metadata;
  readonly #prefix: string;
  #ready: Promise<void> | undefined;

  constructor(options: KnowledgeBaseOptions) {
    if (!options.name) throw new RagError("a knowledge base needs a name");
    this.name = options.name;
    this.description = options.description ?? "";
    this.store = options.store;
    this.collection = options.collection ?? options.name;
    this.filter = options.filter;
    this.embedder = new Embedder(options.embedding, options.embedder);
    this.#chunker = options.chunker ?? new RecursiveChunker();
    this.#readers = options.readers;
    this.#pool = options.readers ? undefined : options.readerPool;
    this.#scope = {};
    for (const condition of filterConditions(options.filter)) {
      if (condition.op !== "$eq") {
        throw new RagError(
          `knowledge base "${this.name}": its filter may hold equalities only (it is written onto every chunk)`,
        );
      }
      this.#scope[condition.key] = condition.value as string;
    }
    const keys = Object.keys(this.#scope).sort();
    this.#prefix =
      keys.length === 0
        ? ""
        : `${keys.map((k) => `${k}=${String(this.#scope[k])}`).join("&")}${SCOPE_SEPARATOR}`;
  }

  /** Creates the collection if needed (done on first use). */
  ready(): Promise<void> {
    this.#ready ??= this.store
      .createCollection(this.collection, { dimensions: this.embedder.model.dimensions })
      .catch((error) => {
        this.#ready = undefined;
        throw error;
      });
    return this.#ready;
  }

  /** Reads, chunks, embeds and stores one document, replacing a previous version with the same id. */
  async insertDocument(
    input: DocumentInput,
    options: InsertOptions = {},
  ): Promise<{ documentId: string; chunks: number }> {
    const progress = options.onProgress ?? (() => {});
    const documentId = options.documentId ?? sourceOf(input);
    if (!documentId) throw new RagError("insertDocument needs a documentId when the input has no source");
    await this.ready();
    const metadata = { ...options.metadata, ...this.#scope };
    const storedId = this.#prefix + documentId;
    let chunks: Chunk[];
    if (typeof input === "object" && "chunks" in input) {
      chunks = input.chunks.map((chunk, chunkIndex) => ({
        ...chunk,
        documentId: storedId,
        chunkIndex,
        metadata: { ...chunk.metadata, ...metadata },
      }));
    } else {
      progress({ stage: "read", done: 0, total: 1 });
      const sections =
        typeof input === "object" && "sections" in input ? input.sections : await this.#read(input);
      progress({ stage: "chunk", done: 0, total: sections.length });
      chunks = await chunkSections(
        sections.map((section) => ({ ...section, metadata: { ...section.metadata, ...this.#scope } })),
        this.#chunker,
        storedId,
        metadata,
      );
    }
    const vectors = await this.embedder.embed(
      chunks.map((chunk) => chunk.text),
      {
        ...(options.signal ? { signal: options.signal } : {}),
        onProgress: (p) => progress({ stage: "embed", ...p }),
      },
    );
    progress({ stage: "store", done: 0, total: chunks.length });
    await this.store.replaceDocument(
      this.collection,
      storedId,
      chunks.map((chunk, i) => ({ ...chunk, vector: vectors[i] as number[] })),
    );
    progress({ stage: "done", done: chunks.length, total: chunks.length });
    return { documentId, chunks: chunks.length };
  }

  /** Searches with one or more queries; results de-duplicated by chunk (best score kept), best first. */
  async search(
    queries: string | readonly string[],
    options: KnowledgeSearchOptions = {},
  ): Promise<KnowledgeHit[]> {
    const list = (typeof queries === "string" ? [queries] : [...queries]).filter((q) => q.trim() !== "");
    const topK = options.topK ?? 5;
    if (!Number.isInteger(topK) || topK < 1)
      throw new RagError(`topK must be a positive integer, got ${topK}`);
    if (list.length === 0) return [];
    await this.ready();
    const keyword = this.store.capabilities.keyword && this.store.keywordSearch !== undefined;
    const mode = options.mode ?? (keyword ? "hybrid" : "vector");
    if (mode !== "vector" && !keyword) {
      throw new RagError(
        `knowledge base "${this.name}": the ${this.store.kind} store has no keyword search; use mode "vector"`,
      );
    }
    const filter = combineFilters(this.filter, options.filter);
    const vectors =
      mode === "keyword"
        ? []
        : await this.embedder.embed(list, options.signal ? { signal: options.signal } : {});
    const candidates = mode === "hybrid" ? Math.max(topK * 4, 20) : topK;
    const threshold = options.scoreThreshold;
    const perQuery = await Promise.all(
      list.map(async (text, i): Promise<FusedHit[]> => {
        const byVector =
          mode === "keyword"
            ? []
            : (
                await this.store.search(this.collection, {
                  vector: vectors[i] as number[],
                  topK: candidates,
                  ...(filter ? { filter } : {}),
                })
              ).filter((hit) => threshold === undefined || hit.score >= threshold);
        if (mode === "vector") return byVector.map((hit) => ({ ...hit, vectorScore: hit.score }));
        const byKeyword = (
          await (this.store.keywordSearch as NonNullable<VectorStore["keywordSearch"]>)(this.collection, {
            text,
            topK: candidates,
            ...(filter ? { filter } : {}),
          })
        ).filter((hit) => mode === "hybrid" || threshold === undefined || hit.score >= threshold);
        if (mode === "keyword") return byKeyword.map((hit) => ({ ...hit, keywordScore: hit.score }));
        return reciprocalRankFusion(byVector, byKeyword);
      }),
    );
    const best = new Map<string, FusedHit>();
    for (const hit of perQuery.flat()) {
      const key = hitKey(hit);
      const existing = best.get(key);
      if (!existing || hit.score > existing.score) best.set(key, hit);
    }
    return [...best.values()]
      .sort((a, b) => b.score - a.score)
      .slice(0, topK)
      .map((hit) => ({ ...hit, chunk: this.#unscope(hit.chunk), knowledgeBase: this.name }));
  }

  /** Deletes a document's chunks; returns whether there were any. */
  async deleteDocument(documentId: string): Promise<boolean> {
    await this.ready();
    return (await this.store.deleteDocument(this.collection, this.#prefix + documentId, this.filter)) > 0;
  }

  async listDocuments(options: { filter?: MetadataFilter } = {}): Promise<DocumentInfo[]> {
    await this.ready();
    const filter = combineFilters(this.filter, options.filter);
    const documents = await this.store.listDocuments(this.collection, filter ? { filter } : {});
    return documents
      .filter((doc) => doc.documentId.startsWith(this.#prefix))
      .map((doc) => ({ ...doc, documentId: doc.documentId.slice(this.#prefix.length) }));
  }

  async listChunks(
    options: { documentId?: string; filter?: MetadataFilter; limit?: number; offset?: number } = {},
  ): Promise<Chunk[]> {
    await this.ready();
    const filter = combineFilters(this.filter, options.filter);
    const chunks = await this.store.listChunks(this.collection, {
      ...options,
      ...(options.documentId !== undefined ? { documentId: this.#prefix + options.documentId } : {}),
      ...(filter ? { filter } : {}),
    });
    return chunks
      .filter((chunk) => chunk.documentId.startsWith(this.#prefix))
      .map((chunk) => this.#unscope(chunk));
  }

  async #read(input: string | ReaderInput): Promise<Section[]> {
    if (this.#pool) return this.#pool.read(await documentBytes(input));
    return readDocument(input, this.#readers ? { readers: this.#readers } : {});
  }

  #unscope(chunk: Chunk): Chunk {
    return this.#prefix && chunk.documentId.startsWith(this.#prefix)
      ? { ...chunk, documentId: chunk.documentId.slice(this.#prefix.length) }
      : chunk;
  }
}

function sourceOf(input: DocumentInput): string | undefined {
  if (typeof input === "string") return input;
  if ("bytes" in input) return input.source;
  if ("sections" in input) return input.sections[0]?.source;
  return input.chunks[0]?.source;
}
