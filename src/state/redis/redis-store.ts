import type { Redis } from "ioredis";
import { ValidationError } from "../../message/index.js";
import type { AgentState } from "../agent-state.js";
import { importDriver } from "../lazy-driver.js";
import { LoopTurnBatch } from "../loop-turn-batch.js";
import { parseServerUrl } from "../server-url.js";
import { readListOptions, toPage } from "../session-paging.js";
import { assertSessionId } from "../state-codec.js";
import { type CompactionPolicy, type PlannedSave, SaveTracker } from "../state-delta.js";
import type {
  AgentStateStore,
  ListOptions,
  SaveOptions,
  SessionPage,
  SessionSummary,
  StoredState,
} from "../store.js";
import { StateConflictError } from "../store-errors.js";
import type { StoreScheme } from "../store-family.js";
import type { StoredPatch } from "../stored-patches.js";
import { ValidatedLoads } from "../validated-loads.js";
import { REDIS_SAVE_STATE_LUA } from "./redis-save-state.js";
import { RedisScript } from "./redis-script.js";

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
  /** When a save writes the whole state instead of a patch (see CompactionPolicy). */
  compaction?: CompactionPolicy;
}

/** A planned save as `REDIS_SAVE_STATE_LUA` takes it. */
export function redisSavePayload(save: PlannedSave): string {
  return save.kind === "patch" ? `P${save.base}${save.head}${save.json}` : `S${save.head}${save.json}`;
}

const PATCH_FIELD = /^p:([1-9][0-9]{0,15})$/;

/** The state a session's hash holds (see REDIS_SAVE_STATE_LUA), with what its next save patches. */
function readHash(sessionId: string, hash: Record<string, string>, loads: ValidatedLoads) {
  const what = `stored AgentState of session ${JSON.stringify(sessionId)}`;
  const version = Number(hash.version);
  if (!Number.isSafeInteger(version) || version < 1) {
    throw new ValidationError(what, "version", `is not a version: ${JSON.stringify(hash.version)}`);
  }
  const base = hash.base === undefined ? version : Number(hash.base);
  const patches: StoredPatch[] = [];
  let patchChars = 0;
  for (const [field, patch] of Object.entries(hash)) {
    const match = PATCH_FIELD.exec(field);
    if (!match) continue;
    patches.push({ version: Number(match[1]), patch });
    patchChars += patch.length;
  }
  patches.sort((a, b) => a.version - b.version);
  const last = patches.at(-1)?.version ?? base;
  if (!Number.isSafeInteger(base) || last !== version) {
    throw new ValidationError(what, "version", `is ${version}, but the saves stored end at ${last}`);
  }
  const snapshot = hash.state ?? "";
  return {
    state: loads.decode(sessionId, snapshot, base, patches),
    chain: {
      version,
      head: hash.head ?? null,
      snapshotChars: snapshot.length,
      patchChars,
      patches: patches.length,
    },
  };
}

/**
 * KEYS: the index zset, then one session hash per save. ARGV: updatedAt, then per save: expected
 * version, payload (`redisSavePayload`), session id. Returns `ok, version` per save (ok 0: the version it found). Every
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
 * States in Redis: one hash per session (`<prefix>s:<id>`: version, updatedAt, the snapshot and the
 * patches after it, see REDIS_SAVE_STATE_LUA) and a sorted set `<prefix>index` for listing.
 * Compare-and-set runs in one Lua script, so it is atomic on the server; a save writes a patch of what
 * changed, a snapshot now and then (CompactionPolicy), which drops the patches before it.
 */
export class RedisStateStore implements AgentStateStore {
  readonly prefix: string;
  readonly #options: RedisStateStoreOptions;
  readonly #tracker: SaveTracker;
  readonly #loads = new ValidatedLoads();
  #client: Promise<Redis> | undefined;

  constructor(options: RedisStateStoreOptions | string = {}) {
    this.#options = typeof options === "string" ? { url: options } : options;
    this.prefix = this.#options.prefix ?? this.#options.keyPrefix ?? "agentscope:state:";
    this.#tracker = new SaveTracker(this.#options.compaction);
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
    const hash = await (await this.#redis()).hgetall(this.stateKey(sessionId));
    if (hash.version === undefined) return undefined;
    const { state, chain } = readHash(sessionId, hash, this.#loads);
    this.#tracker.loaded(sessionId, state, chain);
    return { state, version: chain.version };
  }

  async save(sessionId: string, state: AgentState, options: SaveOptions): Promise<{ version: number }> {
    const expected = options.expectedVersion;
    const planned = this.#tracker.plan(sessionId, state, options);
    const { ok, version } = await this.#saves.call({ sessionId, expected, json: redisSavePayload(planned) });
    if (ok) return { version };
    if (planned.kind === "patch" && version === expected) {
      // a patch on a base that is not the stored save at this version (the session was deleted and
      // saved again meanwhile): at the expected version the save is due all the same, as a snapshot
      this.#tracker.forget(state);
      return this.save(sessionId, state, options);
    }
    throw new StateConflictError(sessionId, expected, version);
  }

  /**
   * A save as `REDIS_SAVE_STATE_LUA` takes it, for a caller that runs it in a script of its own (the
   * service's run end): a patch of what changed since this store last saved or loaded `state`, or a
   * snapshot. Argument and encoding errors throw here, as `save` rejects.
   */
  savePayload(sessionId: string, state: AgentState, options: SaveOptions): string {
    return redisSavePayload(this.#tracker.plan(sessionId, state, options));
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

/** Redis: the state, a Stream per session's events, `SET NX PX` leases, pub/sub between replicas. */
export const redisScheme: StoreScheme = {
  schemes: ["redis", "rediss"],
  example: "redis://",
  async openStore(url, { prefix }) {
    const store = new RedisStateStore({ url: parseServerUrl(url, "the Redis store"), prefix });
    await store.init();
    return store;
  },
};
