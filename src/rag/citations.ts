import type { Chunk } from "./types.js";

/** Where a chunk came from, for a citation: `guide.pdf, page 2`, `book.xlsx, sheet Parts`, `notes.md > Setup > Linux`. */
export function citationOf(chunk: Chunk): string {
  const parts = [chunk.source];
  if (chunk.page !== undefined) parts.push(`page ${chunk.page}`);
  if (chunk.sheet !== undefined) parts.push(`sheet ${chunk.sheet}`);
  if (chunk.slide !== undefined) parts.push(`slide ${chunk.slide}`);
  const place = parts.join(", ");
  return chunk.headingPath && chunk.headingPath.length > 0
    ? `${place} > ${chunk.headingPath.join(" > ")}`
    : place;
}

/** Numbered excerpts with their sources, the form the model is asked to cite (`[1]`). */
export function formatExcerpts(chunks: readonly Chunk[]): string {
  return chunks.map((chunk, i) => `[${i + 1}] (${citationOf(chunk)})\n${chunk.text}`).join("\n\n");
}
