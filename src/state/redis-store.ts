import type { Redis } from "ioredis";
import type { AgentState } from "./agent-state.js";
import { importDriver } from "./lazy-driver.js";
import { RedisScript } from "./redis-script.js";
import { readListOptions, toPage } from "./session-paging.js";
import { assertSessionId, decodeState, encodeState } from "./state-codec.js";
import type {
  AgentStateStore,
  ListOptions,
  SaveOptions,
  SessionPage,
  SessionSummary,
  StoredState,
} from "./store.js";
import { StateConflictError } from "./store-errors.js";

export interface RedisStateStoreOptions {
  /** `redis://` or `rediss://` URL; default `redis://127.0.0.1:6379`. */
  url?: string;
  /** An ioredis client to use instead (left open by `close`). */
  client?: Redis;
  /**
   * Prefix of every key this store writes; default `agentscope:state:`. The same name the service
   * backends use (`prefix`) and the service config sets (`storePrefix`), so two deployments on one
   * Redis keep apart.
   */
  prefix?: string;
  /** @deprecated the old name of `prefix`; used only when `prefix` is not given. */
  keyPrefix?: string;
}

/** KEYS: session hash, index zset. ARGV: expected version, state JSON, updatedAt, session id. */
const SAVE_SCRIPT = new RedisScript(
  `
local actual = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if actual ~= tonumber(ARGV[1]) then return {0, actual} end
redis.call('HSET', KEYS[1], 'version', actual + 1, 'state', ARGV[2], 'updatedAt', ARGV[3])
redis.call('ZADD', KEYS[2], 0, ARGV[4])
return {1, actual + 1}`,
);

const DELETE_SCRIPT = new RedisScript(
  `
local removed = redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return removed`,
);

/**
 * States in Redis: one hash per session (`<prefix>s:<id>`: version, state, updatedAt) and a sorted set
 * `<prefix>index` for listing. Compare-and-set runs in one Lua script, so it is atomic on the server.
 */
export class RedisStateStore implements AgentStateStore {
  readonly prefix: string;
  readonly #options: RedisStateStoreOptions;
  #client: Promise<Redis> | undefined;

  constructor(options: RedisStateStoreOptions | string = {}) {
    this.#options = typeof options === "string" ? { url: options } : options;
    this.prefix = this.#options.prefix ?? this.#options.keyPrefix ?? "agentscope:state:";
  }

  /** Connects (once). Missing driver: MissingDriverError; no server: the connection error. */
  async init(): Promise<void> {
    await this.#redis();
  }

  #redis(): Promise<Redis> {
    this.#client ??= this.#connect();
    return this.#client;
  }

  async #connect(): Promise<Redis> {
    if (this.#options.client) return this.#options.client;
    const { Redis: RedisClient } = await importDriver(() => import("ioredis"), "ioredis", "RedisStateStore");
    const url = this.#options.url ?? "redis://127.0.0.1:6379";
    const client = new RedisClient(url, { lazyConnect: true, maxRetriesPerRequest: 3 });
    client.on("error", () => {}); // commands reject with the error; ioredis would print it otherwise
    try {
      await client.connect();
    } catch (error) {
      client.disconnect();
      this.#client = undefined;
      throw new Error(`RedisStateStore cannot connect to ${url}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    return client;
  }

  #key(sessionId: string): string {
    return `${this.prefix}s:${sessionId}`;
  }

  get #index(): string {
    return `${this.prefix}index`;
  }

  async load(sessionId: string): Promise<StoredState | undefined> {
    assertSessionId(sessionId);
    const [version, state] = await (await this.#redis()).hmget(this.#key(sessionId), "version", "state");
    if (version === null) return undefined;
    return { state: decodeState(sessionId, state ?? ""), version: Number(version) };
  }

  async save(sessionId: string, state: AgentState, options: SaveOptions): Promise<{ version: number }> {
    const json = encodeState(sessionId, state, options);
    const redis = await this.#redis();
    const keys = [this.#key(sessionId), this.#index];
    const args = [options.expectedVersion, json, new Date().toISOString(), sessionId];
    const [ok, version] = (await SAVE_SCRIPT.run(redis, keys, args)) as [number, number];
    if (ok !== 1) throw new StateConflictError(sessionId, options.expectedVersion, version);
    return { version };
  }

  async delete(sessionId: string): Promise<boolean> {
    assertSessionId(sessionId);
    const redis = await this.#redis();
    return (await DELETE_SCRIPT.run(redis, [this.#key(sessionId), this.#index], [sessionId])) === 1;
  }

  async list(options?: ListOptions): Promise<SessionPage> {
    const { limit, after } = readListOptions(options);
    const redis = await this.#redis();
    const start = after === undefined ? "-" : `(${after}`;
    const ids = await redis.zrangebylex(this.#index, start, "+", "LIMIT", 0, limit + 1);
    const pipeline = redis.pipeline();
    for (const id of ids) pipeline.hmget(this.#key(id), "version", "updatedAt");
    const replies = (await pipeline.exec()) ?? [];
    const sessions: SessionSummary[] = [];
    replies.forEach(([error, reply], i) => {
      if (error) throw error;
      const [version, updatedAt] = reply as [string | null, string | null];
      if (version !== null)
        sessions.push({ sessionId: ids[i]!, version: Number(version), updatedAt: updatedAt ?? "" });
    });
    return toPage(sessions, limit);
  }

  async close(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    if (client && !this.#options.client) await (await client.catch(() => undefined))?.quit();
  }
}
