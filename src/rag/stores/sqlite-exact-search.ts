import type { SqliteDatabase, SqliteValue } from "../../state/sqlite/sqlite-driver.js";

/** A chunk's place in an exact search: its row id and cosine distance (1 − similarity). */
export interface ExactHit {
  id: number;
  distance: number;
}

interface BlobRow {
  id: number;
  document_id: string;
  chunk_index: number;
  embedding: Uint8Array;
}

/** A stored Float32 blob as the numbers it holds: a view of it, or a copy where it is not aligned. */
export function blobVector(blob: Uint8Array): Float32Array {
  const length = blob.byteLength / Float32Array.BYTES_PER_ELEMENT;
  if (blob.byteOffset % Float32Array.BYTES_PER_ELEMENT === 0)
    return new Float32Array(blob.buffer, blob.byteOffset, length);
  const vector = new Float32Array(length);
  new Uint8Array(vector.buffer).set(blob);
  return vector;
}

/** Cosine distance over Float32 values; a zero vector is at distance 1 (similarity 0). */
function cosineDistance(query: Float32Array, queryNorm: number, vector: Float32Array): number {
  let dot = 0;
  let norm = 0;
  for (let i = 0; i < vector.length; i++) {
    const x = vector[i] as number;
    dot += (query[i] as number) * x;
    norm += x * x;
  }
  if (queryNorm === 0 || norm === 0) return 1;
  return 1 - dot / Math.sqrt(queryNorm * norm);
}

/** SQLite's BINARY order of two texts (their UTF-8 bytes), which `<` on UTF-16 strings is not. */
const binaryOrder = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * The `topK` chunks of `${t}_chunks` (alias c) matching `where`, nearest `query` first, by an exact
 * scan in JavaScript over their Float32 blobs in `${t}_blobs`: the SQLite vector store's search
 * without sqlite-vec. Ties go by document id, then chunk index, as the sqlite-vec search orders them.
 */
export function exactSearch(
  db: SqliteDatabase,
  t: string,
  query: Float32Array,
  where: { sql: string; params: SqliteValue[] },
  topK: number,
): ExactHit[] {
  const rows = db
    .prepare<SqliteValue[], BlobRow>(
      `SELECT c.id, c.document_id, c.chunk_index, b.embedding FROM ${t}_chunks c
       JOIN ${t}_blobs b ON b.id = c.id WHERE ${where.sql}`,
    )
    .all(...where.params);
  let queryNorm = 0;
  for (const x of query) queryNorm += x * x;
  const scored = rows.map((row) => ({
    row,
    distance: cosineDistance(query, queryNorm, blobVector(row.embedding)),
  }));
  scored.sort(
    (a, b) =>
      a.distance - b.distance ||
      binaryOrder(a.row.document_id, b.row.document_id) ||
      a.row.chunk_index - b.row.chunk_index,
  );
  return scored.slice(0, topK).map(({ row, distance }) => ({ id: Number(row.id), distance }));
}
