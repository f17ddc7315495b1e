import type { Chunk, Metadata, Section } from "../types.js";
import type { Chunker } from "./chunker.js";

/**
 * Chunks each section separately (chunks never span sections) and numbers the chunks of the
 * document from 0. Each chunk keeps its section's source and location (a piece may refine the
 * location, e.g. a deeper heading path) and gets the document metadata merged with the section's.
 */
export async function chunkSections(
  sections: readonly Section[],
  chunker: Chunker,
  documentId: string,
  metadata: Metadata = {},
): Promise<Chunk[]> {
  const chunks: Chunk[] = [];
  for (const section of sections) {
    const location = {
      ...(section.page !== undefined ? { page: section.page } : {}),
      ...(section.sheet !== undefined ? { sheet: section.sheet } : {}),
      ...(section.slide !== undefined ? { slide: section.slide } : {}),
      ...(section.headingPath !== undefined && section.headingPath.length > 0
        ? { headingPath: section.headingPath }
        : {}),
    };
    if (section.text.trim() === "") continue;
    for (const piece of await chunker.split(section.text, location)) {
      chunks.push({
        ...location,
        ...piece,
        documentId,
        chunkIndex: chunks.length,
        source: section.source,
        metadata: { ...metadata, ...section.metadata },
      });
    }
  }
  return chunks;
}
