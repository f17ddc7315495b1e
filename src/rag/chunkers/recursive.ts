import { approximateTokens, type Chunker, type ChunkPiece, type ChunkSize, chunkSize } from "./chunker.js";
import { slidingWindows, wordsOf } from "./token-window.js";

const DEFAULT_SEPARATORS = ["\n\n", "\n", ". ", " "];

export interface RecursiveChunkerOptions extends ChunkSize {
  /** Tried in order: split on the first that makes the pieces fit. Default paragraphs, lines, sentences, words. */
  separators?: string[];
  /** Measures tokens; default approximate (bytes / 4). */
  measure?: (text: string) => number;
}

/**
 * Splits on the coarsest separator that works (paragraphs, then lines, sentences, words), packing
 * neighbouring parts up to `size` tokens, so chunks end at natural boundaries where they can.
 */
export class RecursiveChunker implements Chunker {
  readonly name = "recursive";
  readonly size: number;
  readonly overlap: number;
  readonly #separators: string[];
  readonly #measure: (text: string) => number;

  constructor(options: RecursiveChunkerOptions = {}) {
    ({ size: this.size, overlap: this.overlap } = chunkSize(options));
    this.#separators = options.separators ?? DEFAULT_SEPARATORS;
    this.#measure = options.measure ?? approximateTokens;
  }

  split(text: string): ChunkPiece[] {
    const parts = this.#splitParts(text, 0);
    return slidingWindows(parts, this.#measure, this.size, this.overlap)
      .map((window) => ({ text: window.join("").trim() }))
      .filter((piece) => piece.text !== "");
  }

  /** Parts (keeping their separators) each no larger than size, split as coarsely as possible. */
  #splitParts(text: string, level: number): string[] {
    if (this.#measure(text) <= this.size) return [text];
    const separator = this.#separators[level];
    if (separator === undefined) return wordsOf(text);
    const pieces = text
      .split(separator)
      .map((part, i, all) => (i < all.length - 1 ? part + separator : part));
    return pieces.filter((p) => p !== "").flatMap((piece) => this.#splitParts(piece, level + 1));
  }
}
