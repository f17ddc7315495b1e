import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, unlink, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type {
  CheckpointBlob,
  CheckpointStore,
  StoredCheckpointRecord,
} from "../checkpoint/checkpoint-store.js";
import { HASH } from "../checkpoint/content-hash.js";
import { fileStem } from "../json-file-store.js";

export interface JsonFileCheckpointStoreOptions {
  /** Directory holding one folder per session (`blobs/<hash>`, `records/<key>.json`); created when missing. */
  directory: string;
}

const RECORD_KEY = /^[\w:.-]{1,64}$/;

/**
 * Session checkpoints as files beside a JSON-file state store: per session, a file per blob named
 * by its hash and a JSON file per record, each written to a temporary name and renamed (a crash
 * leaves the old file or the new one, never half of one; files are not fsynced, so a power cut may
 * lose the newest checkpoints, and one whose blob was lost says so instead of half-restoring). One
 * process per directory, as for the state files.
 */
export class JsonFileCheckpointStore implements CheckpointStore {
  readonly directory: string;

  constructor(options: JsonFileCheckpointStoreOptions) {
    this.directory = resolve(options.directory);
  }

  #session(sessionId: string): string {
    return join(this.directory, fileStem(sessionId));
  }

  #blob(sessionId: string, hash: string): string {
    if (!HASH.test(hash)) throw new TypeError(`checkpoint blob "${hash}" is not a SHA-256 hex digest`);
    return join(this.#session(sessionId), "blobs", hash);
  }

  #record(sessionId: string, key: string): string {
    if (!RECORD_KEY.test(key))
      throw new TypeError(`checkpoint record key "${key}" is not 1-64 of [A-Za-z0-9_:.-]`);
    return join(this.#session(sessionId), "records", `${key.replaceAll(":", "_")}.json`);
  }

  async #write(path: string, data: Uint8Array | string): Promise<void> {
    const temporary = `${path}.${randomBytes(6).toString("hex")}.tmp`;
    await writeFile(temporary, data);
    await rename(temporary, path);
  }

  async putBlobs(sessionId: string, blobs: readonly CheckpointBlob[]): Promise<number> {
    if (blobs.length === 0) return 0;
    await mkdir(join(this.#session(sessionId), "blobs"), { recursive: true });
    const missing = new Set(
      await this.missingBlobs(
        sessionId,
        blobs.map((blob) => blob.hash),
      ),
    );
    let stored = 0;
    for (const blob of blobs) {
      if (!missing.delete(blob.hash)) continue;
      await this.#write(this.#blob(sessionId, blob.hash), blob.bytes);
      stored += blob.bytes.byteLength;
    }
    return stored;
  }

  async getBlobs(sessionId: string, hashes: readonly string[]): Promise<Map<string, Uint8Array>> {
    const found = new Map<string, Uint8Array>();
    for (const hash of hashes) {
      const bytes = await readFile(this.#blob(sessionId, hash)).catch(absentAs(undefined));
      if (bytes) found.set(hash, new Uint8Array(bytes));
    }
    return found;
  }

  async missingBlobs(sessionId: string, hashes: readonly string[]): Promise<string[]> {
    const missing: string[] = [];
    for (const hash of hashes)
      if (!(await stat(this.#blob(sessionId, hash)).catch(absentAs(undefined)))) missing.push(hash);
    return missing;
  }

  async blobSizes(sessionId: string): Promise<Map<string, number>> {
    const folder = join(this.#session(sessionId), "blobs");
    const sizes = new Map<string, number>();
    for (const name of await readdir(folder).catch(absentAs([] as string[]))) {
      if (!HASH.test(name)) continue; // a temporary file a crash left
      const info = await stat(join(folder, name)).catch(absentAs(undefined));
      if (info) sizes.set(name, info.size);
    }
    return sizes;
  }

  async deleteBlobs(sessionId: string, hashes: readonly string[]): Promise<void> {
    for (const hash of hashes) await unlink(this.#blob(sessionId, hash)).catch(absentAs(undefined));
  }

  async putRecord(sessionId: string, key: string, json: string): Promise<void> {
    const path = this.#record(sessionId, key);
    await mkdir(join(this.#session(sessionId), "records"), { recursive: true });
    await this.#write(path, JSON.stringify({ key, json }));
  }

  async records(sessionId: string): Promise<StoredCheckpointRecord[]> {
    const folder = join(this.#session(sessionId), "records");
    const found: StoredCheckpointRecord[] = [];
    for (const name of await readdir(folder).catch(absentAs([] as string[]))) {
      if (!name.endsWith(".json")) continue;
      const text = await readFile(join(folder, name), "utf8").catch(absentAs(undefined));
      if (text === undefined) continue;
      const record = JSON.parse(text) as StoredCheckpointRecord;
      found.push({ key: record.key, json: record.json });
    }
    return found.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  async deleteRecords(sessionId: string, keys: readonly string[]): Promise<void> {
    for (const key of keys) await unlink(this.#record(sessionId, key)).catch(absentAs(undefined));
  }

  async deleteSession(sessionId: string): Promise<void> {
    await rm(this.#session(sessionId), { recursive: true, force: true });
  }

  async close(): Promise<void> {}
}

/** A catch handler answering `value` for a missing file and rethrowing anything else. */
function absentAs<T>(value: T): (error: unknown) => T {
  return (error) => {
    if ((error as { code?: string }).code === "ENOENT") return value;
    throw error;
  };
}
