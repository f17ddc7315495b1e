/** A piece of content stored under the SHA-256 (hex) of its bytes. */
export interface CheckpointBlob {
  hash: string;
  bytes: Uint8Array;
}

/** A checkpoint record as a store keeps it: a key (ordered as strings) and its JSON. */
export interface StoredCheckpointRecord {
  key: string;
  json: string;
}

/**
 * Durable home of a session's checkpoints: small JSON records (the checkpoints themselves and the
 * session's timeline head), and content-addressed blobs (messages, state, workspace files and
 * trees), both namespaced per session so deleting a session, or pruning it, never reaches another.
 * A blob is written once per session however many checkpoints name it. Implementations: memory,
 * SQLite, Redis, PostgreSQL; each passes test/state/checkpoint-contract.ts.
 * - `putBlobs` stores the blobs the session does not hold yet (a hash already held is left as it is)
 *   and answers the bytes it newly stored.
 * - `missingBlobs` answers the hashes of `hashes` the session does not hold, in their order.
 * - `records` answers every record of the session ordered by key; `putRecord` inserts or replaces.
 * - `deleteSession` removes the session's records and blobs.
 */
export interface CheckpointStore {
  putBlobs(sessionId: string, blobs: readonly CheckpointBlob[]): Promise<number>;
  /** The blobs of `hashes` the session holds (a hash it does not hold is absent from the map). */
  getBlobs(sessionId: string, hashes: readonly string[]): Promise<Map<string, Uint8Array>>;
  missingBlobs(sessionId: string, hashes: readonly string[]): Promise<string[]>;
  /** Every blob of the session: hash → size in bytes. */
  blobSizes(sessionId: string): Promise<Map<string, number>>;
  deleteBlobs(sessionId: string, hashes: readonly string[]): Promise<void>;
  putRecord(sessionId: string, key: string, json: string): Promise<void>;
  records(sessionId: string): Promise<StoredCheckpointRecord[]>;
  deleteRecords(sessionId: string, keys: readonly string[]): Promise<void>;
  deleteSession(sessionId: string): Promise<void>;
  /** Releases what the store opened itself; a client passed in is left open. */
  close(): Promise<void>;
}

/** One blob, or undefined when the session does not hold it. */
export async function getBlob(
  store: CheckpointStore,
  sessionId: string,
  hash: string,
): Promise<Uint8Array | undefined> {
  return (await store.getBlobs(sessionId, [hash])).get(hash);
}
