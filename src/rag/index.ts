export {
  ApproximateTokenChunker,
  approximateTokens,
  atxHeading,
  type Chunker,
  type ChunkPiece,
  type ChunkSize,
  chunkSections,
  chunkSize,
  DEFAULT_CHUNK_OVERLAP,
  DEFAULT_CHUNK_SIZE,
  ExactTokenChunker,
  type ExactTokenChunkerOptions,
  MarkdownChunker,
  type MarkdownPart,
  ParagraphChunker,
  type ParagraphChunkerOptions,
  RecursiveChunker,
  type RecursiveChunkerOptions,
  slidingWindows,
  splitMarkdownByHeadings,
  type Tokenizer,
  wordsOf,
} from "./chunkers/index.js";
export { citationOf, formatExcerpts } from "./citations.js";
export { Embedder, type EmbedderOptions, type EmbedProgress } from "./embedder.js";
export { type EmbeddingCache, embeddingCacheKey, InMemoryEmbeddingCache } from "./embedding-cache.js";
export { type DocumentLimit, DocumentLimitError, DocumentReadError, RagError } from "./errors.js";
export { combineFilters, type FilterCondition, filterConditions, matchesFilter } from "./filter.js";
export {
  type DocumentInput,
  type IndexProgress,
  type InsertOptions,
  KnowledgeBase,
  type KnowledgeBaseOptions,
  type KnowledgeHit,
  type KnowledgeSearchOptions,
  type SearchMode,
} from "./knowledge-base.js";
export {
  DEFAULT_HINT_TEMPLATE,
  type KnowledgeBasesSource,
  type RagMiddleware,
  type RagMiddlewareOptions,
  ragMiddleware,
  SEARCH_KNOWLEDGE_TOOL,
  searchKnowledgeTool,
} from "./rag-middleware.js";
export { type FusedHit, hitKey, RRF_K, reciprocalRankFusion } from "./rank-fusion.js";
export {
  CsvReader,
  checkPdfDocument,
  checkZipArchive,
  DEFAULT_ZIP_LIMITS,
  DocxReader,
  decodeEntities,
  decodeText,
  defaultReaders,
  documentBytes,
  flattenJson,
  HtmlReader,
  ImageReader,
  type ImageReaderOptions,
  JsonReader,
  MarkdownReader,
  PdfReader,
  PptxReader,
  parseCsv,
  pickReader,
  RATIO_FLOOR,
  type ReadDocumentOptions,
  type Reader,
  type ReaderInput,
  ReaderPool,
  type ReaderPoolOptions,
  readDocument,
  rowsAsText,
  sharedReaderPool,
  TextReader,
  withoutFrontMatter,
  XlsxReader,
  type ZipLimits,
} from "./readers/index.js";
export { bm25Scores, cosineSimilarity, keywordTokens } from "./similarity.js";
export { LanceDbVectorStore, type LanceDbVectorStoreOptions } from "./stores/lancedb-store.js";
export { InMemoryVectorStore } from "./stores/memory-vector-store.js";
export { PgVectorStore, type PgVectorStoreOptions } from "./stores/pgvector-store.js";
export type { SqliteVectorSearch, SqliteVectorSearchOption } from "./stores/sqlite-vector-search.js";
export {
  DEFAULT_SQLITE_VECTOR_PATH,
  SqliteVectorStore,
  type SqliteVectorStoreOptions,
} from "./stores/sqlite-vector-store.js";
export type {
  Chunk,
  ChunkRecord,
  CollectionOptions,
  DocumentInfo,
  FilterOperators,
  KeywordSearchQuery,
  ListChunksOptions,
  Metadata,
  MetadataFilter,
  MetadataValue,
  SearchHit,
  Section,
  SectionData,
  SectionLocation,
  VectorSearchQuery,
  VectorStore,
} from "./types.js";
