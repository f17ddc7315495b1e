import { RagError } from "../errors.js";
import type { Chunk, ChunkRecord, DocumentInfo, MetadataFilter, VectorStore } from "../types.js";

/** Throws unless every record is well-formed and its vector has the collection's length. */
export function checkRecords(collection: string, dimensions: number, records: readonly ChunkRecord[]): void {
  for (const record of records) {
    if (typeof record.documentId !== "string" || record.documentId === "") {
      throw new RagError(`collection "${collection}": every chunk needs a non-empty documentId`);
    }
    if (!Number.isInteger(record.chunkIndex) || record.chunkIndex < 0) {
      throw new RagError(
        `collection "${collection}": chunk ${record.documentId}#${record.chunkIndex} has a bad chunkIndex`,
      );
    }
    checkVector(collection, dimensions, record.vector, `chunk ${record.documentId}#${record.chunkIndex}`);
  }
}

/** Throws unless the vector has the collection's length and only finite numbers. */
export function checkVector(
  collection: string,
  dimensions: number,
  vector: readonly number[],
  what: string,
): void {
  if (!Array.isArray(vector) || vector.length !== dimensions) {
    throw new RagError(
      `collection "${collection}" holds ${dimensions}-dimensional vectors but ${what} has ${Array.isArray(vector) ? vector.length : "no"} dimensions`,
    );
  }
  if (!vector.every((x) => Number.isFinite(x)))
    throw new RagError(`${what} has a non-finite vector component`);
}

/** Throws unless topK is a positive integer. */
export function checkTopK(topK: number): void {
  if (!Number.isInteger(topK) || topK < 1) throw new RagError(`topK must be a positive integer, got ${topK}`);
}

export function missingCollection(kind: string, collection: string): RagError {
  return new RagError(`${kind} store has no collection "${collection}"; create it first`, "not_found");
}

export function dimensionMismatch(collection: string, existing: number, requested: number): RagError {
  return new RagError(
    `collection "${collection}" already exists with ${existing} dimensions, not ${requested}; use another collection or delete it`,
  );
}

/** Strips the vector from a record. */
export function toChunk(record: ChunkRecord): Chunk {
  const { vector: _vector, ...chunk } = record;
  return chunk;
}

/** Orders chunks by documentId then chunkIndex (the listing order every store returns). */
export function compareChunks(a: Chunk, b: Chunk): number {
  if (a.documentId !== b.documentId) return a.documentId < b.documentId ? -1 : 1;
  return a.chunkIndex - b.chunkIndex;
}

/** Groups ordered chunks into documents. */
export function summariseDocuments(chunks: readonly Chunk[]): DocumentInfo[] {
  const byId = new Map<string, DocumentInfo>();
  for (const chunk of chunks) {
    const existing = byId.get(chunk.documentId);
    if (existing) existing.chunkCount++;
    else
      byId.set(chunk.documentId, {
        documentId: chunk.documentId,
        source: chunk.source,
        chunkCount: 1,
        metadata: chunk.metadata,
      });
  }
  return [...byId.values()];
}

/** Applies offset/limit to a list. */
export function page<T>(items: T[], offset = 0, limit?: number): T[] {
  return items.slice(offset, limit === undefined ? undefined : offset + limit);
}

/** A collection's documents from its ordered chunk listing (for stores with no cheaper query). */
export async function documentsFromChunks(
  store: Pick<VectorStore, "listChunks">,
  collection: string,
  filter: MetadataFilter | undefined,
): Promise<DocumentInfo[]> {
  return summariseDocuments(await store.listChunks(collection, filter ? { filter } : {}));
}
