export { chunkSections } from "./chunk-sections.js";
export {
  approximateTokens,
  type Chunker,
  type ChunkPiece,
  type ChunkSize,
  chunkSize,
  DEFAULT_CHUNK_OVERLAP,
  DEFAULT_CHUNK_SIZE,
} from "./chunker.js";
export { MarkdownChunker } from "./markdown.js";
export { atxHeading, type MarkdownPart, splitMarkdownByHeadings } from "./markdown-headings.js";
export { ParagraphChunker, type ParagraphChunkerOptions } from "./paragraph.js";
export { RecursiveChunker, type RecursiveChunkerOptions } from "./recursive.js";
export {
  ApproximateTokenChunker,
  ExactTokenChunker,
  type ExactTokenChunkerOptions,
  slidingWindows,
  type Tokenizer,
  wordsOf,
} from "./token-window.js";
