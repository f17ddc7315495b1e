import { importOptional } from "../readers/lazy-import.js";
import { approximateTokens, type Chunker, type ChunkPiece, type ChunkSize, chunkSize } from "./chunker.js";

/**
 * Cuts a list of units (words with their trailing whitespace, or tokens) into windows of at most
 * `size` measured tokens, each starting `overlap` tokens before the previous one ended. A single
 * unit larger than `size` becomes a window of its own.
 */
export function slidingWindows<T>(
  units: readonly T[],
  measure: (unit: T) => number,
  size: number,
  overlap: number,
): T[][] {
  const windows: T[][] = [];
  let start = 0;
  while (start < units.length) {
    let end = start;
    let total = 0;
    while (end < units.length && (end === start || total + measure(units[end] as T) <= size)) {
      total += measure(units[end] as T);
      end++;
    }
    windows.push(units.slice(start, end));
    if (end >= units.length) break;
    // Step back over up to `overlap` tokens, but always move forward.
    let back = end;
    let carried = 0;
    while (back > start + 1 && carried + measure(units[back - 1] as T) <= overlap) {
      carried += measure(units[back - 1] as T);
      back--;
    }
    start = back;
  }
  return windows;
}

/** Words with their trailing whitespace, so joining them gives the text back. */
export function wordsOf(text: string): string[] {
  return text.match(/\S+\s*/g) ?? [];
}

/**
 * The reference's default: windows of `size` approximate tokens (UTF-8 bytes / 4) with `overlap`,
 * cut at word boundaries.
 */
export class ApproximateTokenChunker implements Chunker {
  readonly name = "approximate-token";
  readonly size: number;
  readonly overlap: number;

  constructor(options: ChunkSize = {}) {
    ({ size: this.size, overlap: this.overlap } = chunkSize(options));
  }

  split(text: string): ChunkPiece[] {
    return slidingWindows(wordsOf(text), approximateTokens, this.size, this.overlap)
      .map((words) => ({ text: words.join("").trim() }))
      .filter((piece) => piece.text !== "");
  }
}

/** A tokenizer: text to token ids and back. */
export interface Tokenizer {
  encode(text: string): number[];
  decode(tokens: number[]): string;
}

export interface ExactTokenChunkerOptions extends ChunkSize {
  /** Default: js-tiktoken's `cl100k_base` (loaded on first use). */
  tokenizer?: Tokenizer;
  /** tiktoken encoding name when no tokenizer is given; default `cl100k_base`. */
  encoding?: string;
}

/** Windows of exactly `size` real tokens (a tiktoken encoding by default) with `overlap`. */
export class ExactTokenChunker implements Chunker {
  readonly name = "exact-token";
  readonly size: number;
  readonly overlap: number;
  #tokenizer: Promise<Tokenizer> | undefined;

  constructor(readonly options: ExactTokenChunkerOptions = {}) {
    ({ size: this.size, overlap: this.overlap } = chunkSize(options));
    if (options.tokenizer) this.#tokenizer = Promise.resolve(options.tokenizer);
  }

  async split(text: string): Promise<ChunkPiece[]> {
    this.#tokenizer ??= loadTiktoken(this.options.encoding ?? "cl100k_base");
    const tokenizer = await this.#tokenizer;
    const tokens = tokenizer.encode(text);
    return slidingWindows(tokens, () => 1, this.size, this.overlap)
      .map((window) => ({ text: tokenizer.decode(window).trim() }))
      .filter((piece) => piece.text !== "");
  }
}

async function loadTiktoken(encoding: string): Promise<Tokenizer> {
  const { getEncoding } = await importOptional(
    () => import("js-tiktoken"),
    "js-tiktoken",
    "ExactTokenChunker with an encoding name",
  );
  return getEncoding(encoding as Parameters<typeof getEncoding>[0]);
}
