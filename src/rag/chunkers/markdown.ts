import type { SectionLocation } from "../types.js";
import type { Chunker, ChunkPiece, ChunkSize } from "./chunker.js";
import { splitMarkdownByHeadings } from "./markdown-headings.js";
import { RecursiveChunker } from "./recursive.js";

/**
 * Markdown-aware: cuts at headings first (each chunk's headingPath names its heading and the ones
 * above it), then splits long parts recursively. A chunk never spans two headings.
 */
export class MarkdownChunker implements Chunker {
  readonly name = "markdown";
  readonly #inner: RecursiveChunker;

  constructor(options: ChunkSize = {}) {
    this.#inner = new RecursiveChunker(options);
  }

  split(text: string, location: SectionLocation): ChunkPiece[] {
    return splitMarkdownByHeadings(text, location.headingPath ?? []).flatMap((part) =>
      this.#inner.split(part.text).map((piece) => ({
        ...piece,
        ...(part.headingPath.length > 0 ? { headingPath: part.headingPath } : {}),
      })),
    );
  }
}
