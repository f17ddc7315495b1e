/**
 * The plain data that flows through the four RAG stages: a Reader turns a file into Sections, a
 * Chunker turns Sections into Chunks, an EmbeddingModel gives each Chunk a vector, a VectorStore
 * keeps ChunkRecords and answers searches. Everything here is JSON-serialisable.
 */

/** A metadata value: stores index scalars only, so filters mean the same thing everywhere. */
export type MetadataValue = string | number | boolean;

/** Free-form metadata on a document, section or chunk. */
export type Metadata = Record<string, MetadataValue>;

/** Where inside its source a section (and every chunk cut from it) sits. */
export interface SectionLocation {
  /** 1-based page number (PDF). */
  page?: number;
  /** Sheet name (spreadsheets). */
  sheet?: string;
  /** 1-based slide number (presentations). */
  slide?: number;
  /** Headings enclosing the section, outermost first (Markdown, HTML, docx). */
  headingPath?: string[];
}

/** Binary content kept as-is (an image, for multimodal embedding), base64 encoded. */
export interface SectionData {
  base64: string;
  mediaType: string;
}

/**
 * One coherent piece of a source, as a Reader returns it: a page, a sheet, a slide, the text under
 * a heading. Chunks never span sections, and every chunk keeps its section's location.
 */
export interface Section extends SectionLocation {
  /** The section's text (may be empty for an image without OCR). */
  text: string;
  /** The file path, URL or name the section was read from; shown in citations. */
  source: string;
  /** Media type of the source (`application/pdf`, `text/markdown`, ...). */
  mediaType?: string;
  /** The raw bytes, for sections that are not (only) text. */
  data?: SectionData;
  metadata?: Metadata;
}

/** A piece of a document small enough to embed and to put in a prompt. */
export interface Chunk extends SectionLocation {
  /** The document this chunk belongs to; all chunks of a document are replaced together. */
  documentId: string;
  /** 0-based position of the chunk within its document. (documentId, chunkIndex) is unique. */
  chunkIndex: number;
  text: string;
  /** Copied from the section, for citations. */
  source: string;
  /** Document metadata merged with section metadata (section wins). Filters match against this. */
  metadata: Metadata;
}

/** A chunk with its embedding, as a VectorStore keeps it. */
export interface ChunkRecord extends Chunk {
  /** Length must equal the collection's `dimensions`. */
  vector: number[];
}

/** One search result. Higher scores are better; scales differ by search kind (see VectorStore). */
export interface SearchHit {
  chunk: Chunk;
  score: number;
}

/** What a store knows about one document in a collection. */
export interface DocumentInfo {
  documentId: string;
  source: string;
  chunkCount: number;
  /** The metadata of the document's first chunk (document metadata is copied onto every chunk). */
  metadata: Metadata;
}

/** Comparison operators a filter may use on one metadata key. */
export interface FilterOperators {
  $eq?: MetadataValue;
  $ne?: MetadataValue;
  $in?: MetadataValue[];
  $nin?: MetadataValue[];
  $gt?: number;
  $gte?: number;
  $lt?: number;
  $lte?: number;
}

/**
 * A metadata filter: every key must match (AND). A bare value means equality; an object applies
 * its operators. A chunk without the key matches only `$ne` and `$nin`. Keys are letters, digits,
 * `_`, `-` and `.` (validated, because SQL stores put them in JSON paths).
 */
export type MetadataFilter = Record<string, MetadataValue | FilterOperators>;

export interface CollectionOptions {
  /** Vector length; every upserted vector and every query vector must have it. */
  dimensions: number;
}

export interface VectorSearchQuery {
  vector: number[];
  topK: number;
  filter?: MetadataFilter;
}

export interface KeywordSearchQuery {
  text: string;
  topK: number;
  filter?: MetadataFilter;
}

export interface ListChunksOptions {
  documentId?: string;
  filter?: MetadataFilter;
  /** Default: all. */
  limit?: number;
  offset?: number;
}

/**
 * A collection-based vector store. Contract (checked by test/rag/store-contract.ts on every store):
 * - `createCollection` is idempotent for the same dimensions and throws for different ones;
 *   every other method throws a RagError naming the collection when it does not exist.
 * - `upsert` inserts or replaces by (documentId, chunkIndex); a wrong vector length throws and
 *   writes nothing.
 * - `replaceDocument` swaps all chunks of a document atomically: a reader sees the old chunks or
 *   the new ones, never a mix or none; a failure leaves the old chunks in place.
 * - `search` returns at most topK hits matching the filter, best first, scored by cosine
 *   similarity (1 = same direction).
 * - `keywordSearch` (present when `capabilities.keyword`) ranks by full-text relevance (BM25 or
 *   the engine's equivalent; higher is better, scale is engine-specific).
 * - Listings are ordered by documentId then chunkIndex.
 */
export interface VectorStore {
  /** Engine name for messages and logs (`memory`, `sqlite`, `pgvector`, `lancedb`). */
  readonly kind: string;
  readonly capabilities: { keyword: boolean };
  createCollection(name: string, options: CollectionOptions): Promise<void>;
  deleteCollection(name: string): Promise<void>;
  hasCollection(name: string): Promise<boolean>;
  upsert(collection: string, records: readonly ChunkRecord[]): Promise<void>;
  replaceDocument(collection: string, documentId: string, records: readonly ChunkRecord[]): Promise<void>;
  /** Deletes the document's chunks (only those matching `filter`, when given); returns how many. */
  deleteDocument(collection: string, documentId: string, filter?: MetadataFilter): Promise<number>;
  search(collection: string, query: VectorSearchQuery): Promise<SearchHit[]>;
  keywordSearch?(collection: string, query: KeywordSearchQuery): Promise<SearchHit[]>;
  listDocuments(collection: string, options?: { filter?: MetadataFilter }): Promise<DocumentInfo[]>;
  listChunks(collection: string, options?: ListChunksOptions): Promise<Chunk[]>;
  /** Releases connections and files; the store is unusable afterwards. */
  close(): Promise<void>;
}
