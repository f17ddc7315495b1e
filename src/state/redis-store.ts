import type { Redis } from "ioredis";
import type { AgentState } from "./agent-state.js";
import { importDriver } from "./lazy-driver.js";
import { LoopTurnBatch } from "./loop-turn-batch.js";
import { REDIS_SAVE_STATE_LUA } from "./redis-save-state.js";
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

/**
 * KEYS: the index zset, then one session hash per save. ARGV: updatedAt, then per save: expected
 * version, state JSON, session id. Returns `ok, version` per save (ok 0: the version it found). Every
 * compare-and-set is atomic: the script runs alone, saves of one call in order.
 */
const SAVE_SCRIPT = new RedisScript(`${REDIS_SAVE_STATE_LUA}
local out = {}
for k = 2, #KEYS do
  local a = 2 + (k - 2) * 3
  local ok, version = save_state(KEYS[k], KEYS[1], ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[1])
  out[#out + 1] = ok
  out[#out + 1] = version
end
return out`);

const DELETE_SCRIPT = new RedisScript(
  `
local removed = redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return removed`,
);

interface SaveCall {
  sessionId: string;
  expected: number;
  json: string;
}

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

  /** The saves of one turn of the event loop (many sessions at once on a service), as one script call. */
  readonly #saves = new LoopTurnBatch<SaveCall, { ok: boolean; version: number }>(async (saves) => {
    const redis = await this.#redis();
    const keys = [this.indexKey, ...saves.map((save) => this.stateKey(save.sessionId))];
    const args: Array<string | number> = [new Date().toISOString()];
    for (const save of saves) args.push(save.expected, save.json, save.sessionId);
    const out = (await SAVE_SCRIPT.run(redis, keys, args)) as number[];
    return saves.map((_, i) => ({ ok: out[2 * i] === 1, version: Number(out[2 * i + 1]) }));
  });

  /** The hash holding a session's state (for `REDIS_SAVE_STATE_LUA` in a script of its own). */
  stateKey(sessionId: string): string {
    return `${this.prefix}s:${sessionId}`;
  }

  /** The sorted set of saved sessions (for `REDIS_SAVE_STATE_LUA`). */
  get indexKey(): string {
    return `${this.prefix}index`;
  }

  async load(sessionId: string): Promise<StoredState | undefined> {
    assertSessionId(sessionId);
    const [version, state] = await (await this.#redis()).hmget(this.stateKey(sessionId), "version", "state");
    if (version === null) return undefined;
    return { state: decodeState(sessionId, state ?? ""), version: Number(version) };
  }

  async save(sessionId: string, state: AgentState, options: SaveOptions): Promise<{ version: number }> {
    const json = encodeState(sessionId, state, options);
    const { ok, version } = await this.#saves.call({ sessionId, expected: options.expectedVersion, json });
    if (!ok) throw new StateConflictError(sessionId, options.expectedVersion, version);
    return { version };
  }

  async delete(sessionId: string): Promise<boolean> {
    assertSessionId(sessionId);
    const redis = await this.#redis();
    return (await DELETE_SCRIPT.run(redis, [this.stateKey(sessionId), this.indexKey], [sessionId])) === 1;
  }

  async list(options?: ListOptions): Promise<SessionPage> {
    const { limit, after } = readListOptions(options);
    const redis = await this.#redis();
    const start = after === undefined ? "-" : `(${after}`;
    const ids = await redis.zrangebylex(this.indexKey, start, "+", "LIMIT", 0, limit + 1);
    const pipeline = redis.pipeline();
    for (const id of ids) pipeline.hmget(this.stateKey(id), "version", "updatedAt");
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
