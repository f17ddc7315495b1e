import { approximateTokens, type Chunker, type ChunkPiece } from "./chunker.js";
import { RecursiveChunker } from "./recursive.js";

export interface ParagraphChunkerOptions {
  /** Paragraphs are packed together up to this many approximate tokens; default 512. */
  size?: number;
}

/**
 * One chunk per paragraph (blank-line separated), small neighbours packed together up to `size`;
 * a paragraph larger than `size` is split recursively. No overlap: paragraphs stand alone.
 */
export class ParagraphChunker implements Chunker {
  readonly name = "paragraph";
  readonly size: number;
  readonly #oversize: RecursiveChunker;

  constructor(options: ParagraphChunkerOptions = {}) {
    this.size = options.size ?? 512;
    this.#oversize = new RecursiveChunker({ size: this.size, overlap: 0 });
  }

  split(text: string): ChunkPiece[] {
    const paragraphs = text
      .split(/\n\s*\n/)
      .map((p) => p.trim())
      .filter((p) => p !== "");
    const pieces: ChunkPiece[] = [];
    let current = "";
    const flush = () => {
      if (current !== "") pieces.push({ text: current });
      current = "";
    };
    for (const paragraph of paragraphs) {
      if (approximateTokens(paragraph) > this.size) {
        flush();
        pieces.push(...this.#oversize.split(paragraph));
        continue;
      }
      const joined = current === "" ? paragraph : `${current}\n\n${paragraph}`;
      if (approximateTokens(joined) > this.size) {
        flush();
        current = paragraph;
      } else current = joined;
    }
    flush();
    return pieces;
  }
}
