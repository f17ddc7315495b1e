import type { CheckpointBlob, CheckpointStore, StoredCheckpointRecord } from "./checkpoint-store.js";

interface SessionData {
  blobs: Map<string, Uint8Array>;
  records: Map<string, string>;
}

/** Checkpoints in this process's memory (tests, single-process use): lost when the process ends. */
export class InMemoryCheckpointStore implements CheckpointStore {
  readonly #sessions = new Map<string, SessionData>();

  #of(sessionId: string): SessionData {
    let data = this.#sessions.get(sessionId);
    if (!data) {
      data = { blobs: new Map(), records: new Map() };
      this.#sessions.set(sessionId, data);
    }
    return data;
  }

  async putBlobs(sessionId: string, blobs: readonly CheckpointBlob[]): Promise<number> {
    const { blobs: held } = this.#of(sessionId);
    let added = 0;
    for (const blob of blobs) {
      if (held.has(blob.hash)) continue;
      held.set(blob.hash, Uint8Array.from(blob.bytes));
      added += blob.bytes.byteLength;
    }
    return added;
  }

  async getBlobs(sessionId: string, hashes: readonly string[]): Promise<Map<string, Uint8Array>> {
    const held = this.#sessions.get(sessionId)?.blobs;
    const found = new Map<string, Uint8Array>();
    for (const hash of hashes) {
      const bytes = held?.get(hash);
      if (bytes) found.set(hash, Uint8Array.from(bytes));
    }
    return found;
  }

  async missingBlobs(sessionId: string, hashes: readonly string[]): Promise<string[]> {
    const held = this.#sessions.get(sessionId)?.blobs;
    return hashes.filter((hash) => !held?.has(hash));
  }

  async blobSizes(sessionId: string): Promise<Map<string, number>> {
    const held = this.#sessions.get(sessionId)?.blobs ?? new Map<string, Uint8Array>();
    return new Map([...held].map(([hash, bytes]) => [hash, bytes.byteLength]));
  }

  async deleteBlobs(sessionId: string, hashes: readonly string[]): Promise<void> {
    const held = this.#sessions.get(sessionId)?.blobs;
    for (const hash of hashes) held?.delete(hash);
  }

  async putRecord(sessionId: string, key: string, json: string): Promise<void> {
    this.#of(sessionId).records.set(key, json);
  }

  async records(sessionId: string): Promise<StoredCheckpointRecord[]> {
    const records = this.#sessions.get(sessionId)?.records ?? new Map<string, string>();
    return [...records]
      .map(([key, json]) => ({ key, json }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  async deleteRecords(sessionId: string, keys: readonly string[]): Promise<void> {
    const records = this.#sessions.get(sessionId)?.records;
    for (const key of keys) records?.delete(key);
  }

  async deleteSession(sessionId: string): Promise<void> {
    this.#sessions.delete(sessionId);
  }

  async close(): Promise<void> {}
}
