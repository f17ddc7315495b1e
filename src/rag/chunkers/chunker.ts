import type { SectionLocation } from "../types.js";

/** One piece of a section's text; location fields given here override the section's. */
export interface ChunkPiece extends SectionLocation {
  text: string;
}

/**
 * Splits the text of ONE section into pieces (so chunks never span sections). Must be pure and
 * deterministic, and return no empty pieces.
 */
export interface Chunker {
  readonly name: string;
  split(text: string, location: SectionLocation): ChunkPiece[] | Promise<ChunkPiece[]>;
}

/** Size and overlap, in tokens, shared by the size-bounded chunkers. */
export interface ChunkSize {
  /** Target maximum tokens per chunk; default 512 (the reference's default). */
  size?: number;
  /** Tokens repeated from the end of one chunk at the start of the next; default 50. */
  overlap?: number;
}

export const DEFAULT_CHUNK_SIZE = 512;
export const DEFAULT_CHUNK_OVERLAP = 50;

/** Validated size and overlap. */
export function chunkSize(options: ChunkSize = {}): { size: number; overlap: number } {
  const size = options.size ?? DEFAULT_CHUNK_SIZE;
  const overlap = options.overlap ?? Math.min(DEFAULT_CHUNK_OVERLAP, Math.floor(size / 4));
  if (!Number.isInteger(size) || size < 1)
    throw new RangeError(`chunk size must be a positive integer, got ${size}`);
  if (!Number.isInteger(overlap) || overlap < 0 || overlap >= size) {
    throw new RangeError(`chunk overlap must be an integer from 0 to size - 1 (${size - 1}), got ${overlap}`);
  }
  return { size, overlap };
}

/** Approximate tokens of a text: UTF-8 bytes / 4, the reference implementation's measure. */
export function approximateTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, "utf8") / 4);
}
