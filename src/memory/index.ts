export {
  EXTRACTION_INSTRUCTIONS,
  type ExtractionResult,
  exchangeTranscript,
  extractMemoryOperations,
  type MemoryOperation,
  MemoryOperationsSchema,
  SAVE_MEMORIES_TOOL,
} from "./extraction.js";
export { fileMemoryFiles } from "./file-memory-files.js";
export {
  MEMORY_ROOT,
  type MemoryEntry,
  type MemoryFiles,
  MemoryPathError,
  memoryPath,
  shownPath,
} from "./memory-files.js";
export {
  MEMORY_TOOL_DESCRIPTION,
  type MemoryToolInput,
  type MemoryToolOptions,
  memoryTool,
} from "./memory-tool.js";
export { assertScope, canRead, matchesFilter, scopeKey } from "./scope.js";
export { SemanticMemory, type SemanticMemoryOptions } from "./semantic-memory.js";
export {
  MEMORY_HINT_HEADER,
  type MemoryUsage,
  memoryHint,
  type ScopeSource,
  type SemanticMemoryMiddleware,
  type SemanticMemoryMiddlewareOptions,
  semanticMemoryMiddleware,
} from "./semantic-memory-middleware.js";
export { StateDocument } from "./state-document.js";
export { stateMemoryFiles } from "./state-memory-files.js";
export { StateVectorStore, type StateVectorStoreOptions } from "./state-vector-store.js";
export type {
  ListOptions,
  LongTermMemory,
  MemoryFilter,
  MemoryKind,
  MemoryRecord,
  MemoryScope,
  RecordOptions,
  RecordResult,
  RetrieveOptions,
  ScoredMemory,
} from "./types.js";
