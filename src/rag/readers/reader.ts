import type { Section } from "../types.js";

/** The bytes of one document and what is known about it. */
export interface ReaderInput {
  /** File path, URL or name: copied onto every section as its `source`. */
  source: string;
  bytes: Uint8Array;
  /** Media type when known (an upload's Content-Type). */
  mediaType?: string;
}

/**
 * Turns one document into sections. Must throw DocumentReadError (naming the source) when the bytes
 * cannot be read: callers index nothing from a document that failed. Libraries are imported on the
 * first `read`, never at module load.
 */
export interface Reader {
  readonly name: string;
  /** Lower-case extensions without the dot (`pdf`, `md`). */
  readonly extensions: readonly string[];
  readonly mediaTypes: readonly string[];
  read(input: ReaderInput): Promise<Section[]>;
}

/** UTF-8 text of the bytes (a leading byte-order mark dropped). */
export function decodeText(bytes: Uint8Array): string {
  return new TextDecoder("utf-8").decode(bytes).replace(/^\uFEFF/, "");
}
