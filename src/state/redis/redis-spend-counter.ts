import type { Redis } from "ioredis";
import {
  checkSpendAmount,
  type SpendAddOptions,
  type SpendAddResult,
  type SpendCounter,
} from "../spend-counter.js";
import { RedisScript } from "./redis-script.js";

/** INCRBY under a limit, with the key's expiry set on its first add: one atomic step on the server. */
const ADD = new RedisScript(`
local amount = tonumber(ARGV[1])
local limit = ARGV[2]
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if limit ~= '' and current + amount > tonumber(limit) then return {0, current} end
local total = redis.call('INCRBY', KEYS[1], amount)
if ARGV[3] ~= '' and redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3])) end
return {1, total}
`);

export interface RedisSpendCounterOptions {
  /** An ioredis client (left open by `close`). */
  client: Redis;
  /** Prefix of every key (default `agentscope:spend:`). */
  prefix?: string;
}

/** Spend counters in Redis, shared by every replica on the same server. */
export class RedisSpendCounter implements SpendCounter {
  readonly #redis: Redis;
  readonly #prefix: string;

  constructor(options: RedisSpendCounterOptions) {
    this.#redis = options.client;
    this.#prefix = options.prefix ?? "agentscope:spend:";
  }

  async add(key: string, amount: number, options: SpendAddOptions = {}): Promise<SpendAddResult> {
    checkSpendAmount(amount);
    const [added, total] = (await ADD.run(
      this.#redis,
      [this.#prefix + key],
      [amount, options.limit ?? "", options.ttlSeconds ?? ""],
    )) as [number, number];
    return { added: added === 1, total: Number(total) };
  }

  async read(keys: readonly string[]): Promise<number[]> {
    if (keys.length === 0) return [];
    const values = await this.#redis.mget(...keys.map((key) => this.#prefix + key));
    return values.map((value) => (value === null ? 0 : Number(value)));
  }
}
