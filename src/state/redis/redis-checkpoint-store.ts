import type { Redis } from "ioredis";
import type {
  CheckpointBlob,
  CheckpointStore,
  StoredCheckpointRecord,
} from "../checkpoint/checkpoint-store.js";
import { importDriver } from "../lazy-driver.js";

export interface RedisCheckpointStoreOptions {
  /** `redis://` or `rediss://` URL; default `redis://127.0.0.1:6379`. */
  url?: string;
  /** An ioredis client to use instead (left open by `close`). */
  client?: Redis;
  /** Prefix of every key; default `agentscope:checkpoints:`. */
  prefix?: string;
}

/**
 * Session checkpoints in Redis: per session a hash of blobs (hash → bytes), a hash of their sizes and
 * a hash of records (key → JSON).
 */
export class RedisCheckpointStore implements CheckpointStore {
  readonly #options: RedisCheckpointStoreOptions;
  readonly #prefix: string;
  #client: Promise<Redis> | undefined;

  constructor(options: RedisCheckpointStoreOptions = {}) {
    this.#options = options;
    this.#prefix = options.prefix ?? "agentscope:checkpoints:";
  }

  #redis(): Promise<Redis> {
    this.#client ??= (async () => {
      if (this.#options.client) return this.#options.client;
      const { Redis: RedisClient } = await importDriver(
        () => import("ioredis"),
        "ioredis",
        "RedisCheckpointStore",
      );
      const url = this.#options.url ?? "redis://127.0.0.1:6379";
      const client = new RedisClient(url, { lazyConnect: true, maxRetriesPerRequest: 3 });
      client.on("error", () => {});
      try {
        await client.connect();
      } catch (error) {
        client.disconnect();
        this.#client = undefined;
        throw new Error(`RedisCheckpointStore cannot connect to ${url}: ${(error as Error).message}`, {
          cause: error,
        });
      }
      return client;
    })();
    return this.#client;
  }

  #keys(sessionId: string) {
    const base = `${this.#prefix}${sessionId}:`;
    return { blobs: `${base}blobs`, sizes: `${base}sizes`, records: `${base}records` };
  }

  async putBlobs(sessionId: string, blobs: readonly CheckpointBlob[]): Promise<number> {
    if (blobs.length === 0) return 0;
    const redis = await this.#redis();
    const keys = this.#keys(sessionId);
    const batch = redis.multi();
    for (const blob of blobs) {
      batch.hsetnx(
        keys.blobs,
        blob.hash,
        Buffer.from(blob.bytes.buffer, blob.bytes.byteOffset, blob.bytes.byteLength),
      );
      batch.hsetnx(keys.sizes, blob.hash, String(blob.bytes.byteLength));
    }
    const results = (await batch.exec()) ?? [];
    let added = 0;
    blobs.forEach((blob, i) => {
      const [error, set] = results[2 * i] ?? [];
      if (error) throw error;
      if (set === 1) added += blob.bytes.byteLength;
    });
    return added;
  }

  async getBlobs(sessionId: string, hashes: readonly string[]): Promise<Map<string, Uint8Array>> {
    if (hashes.length === 0) return new Map();
    const redis = await this.#redis();
    const values = await redis.hmgetBuffer(this.#keys(sessionId).blobs, ...hashes);
    const found = new Map<string, Uint8Array>();
    hashes.forEach((hash, i) => {
      const value = values[i];
      if (value) found.set(hash, new Uint8Array(value));
    });
    return found;
  }

  async missingBlobs(sessionId: string, hashes: readonly string[]): Promise<string[]> {
    if (hashes.length === 0) return [];
    const redis = await this.#redis();
    const sizes = await redis.hmget(this.#keys(sessionId).sizes, ...hashes);
    return hashes.filter((_, i) => sizes[i] === null);
  }

  async blobSizes(sessionId: string): Promise<Map<string, number>> {
    const redis = await this.#redis();
    const sizes = await redis.hgetall(this.#keys(sessionId).sizes);
    return new Map(Object.entries(sizes).map(([hash, size]) => [hash, Number(size)]));
  }

  async deleteBlobs(sessionId: string, hashes: readonly string[]): Promise<void> {
    if (hashes.length === 0) return;
    const redis = await this.#redis();
    const keys = this.#keys(sessionId);
    await redis
      .multi()
      .hdel(keys.blobs, ...hashes)
      .hdel(keys.sizes, ...hashes)
      .exec();
  }

  async putRecord(sessionId: string, key: string, json: string): Promise<void> {
    await (await this.#redis()).hset(this.#keys(sessionId).records, key, json);
  }

  async records(sessionId: string): Promise<StoredCheckpointRecord[]> {
    const all = await (await this.#redis()).hgetall(this.#keys(sessionId).records);
    return Object.entries(all)
      .map(([key, json]) => ({ key, json }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  async deleteRecords(sessionId: string, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await (await this.#redis()).hdel(this.#keys(sessionId).records, ...keys);
  }

  async deleteSession(sessionId: string): Promise<void> {
    const keys = this.#keys(sessionId);
    await (await this.#redis()).del(keys.blobs, keys.sizes, keys.records);
  }

  async close(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    if (client && !this.#options.client) await (await client).quit();
  }
}
