import type { Redis } from "ioredis";
import { RedisScript } from "../../../state/redis-script.js";

/**
 * KEYS: one stream per append. ARGV: max length, bus channel, this replica's own subscriptions to the
 * channel (1, or 0 while its subscriber reconnects), then per key: its event count, its bus notice,
 * its events' JSON. Returns the last seq per key. Entry ids are `0-<seq>`, so seq survives trimming.
 * A notice goes out only when another replica listens (the sender would only skip its own echo).
 */
const APPEND = new RedisScript(`
local max, channel = ARGV[1], ARGV[2]
local notify = redis.call('PUBSUB', 'NUMSUB', channel)[2] > tonumber(ARGV[3])
local out = {}
local a = 4
for k = 1, #KEYS do
  local count, notice = tonumber(ARGV[a]), ARGV[a + 1]
  a = a + 2
  local seq = 0
  local last = redis.call('XREVRANGE', KEYS[k], '+', '-', 'COUNT', 1)
  if #last > 0 then seq = tonumber(string.match(last[1][1], '%-(%d+)$')) end
  for i = 1, count do
    seq = seq + 1
    redis.call('XADD', KEYS[k], 'MAXLEN', max, '0-' .. seq, 'e', ARGV[a])
    a = a + 1
  end
  out[k] = seq
  if notify then redis.call('PUBLISH', channel, notice) end
end
return out`);

/** Appends of at most this many sessions go in one script call. */
const MAX_BATCH = 256;

interface PendingAppend {
  key: string;
  notice: string;
  json: string[];
  resolve(lastSeq: number): void;
  reject(error: unknown): void;
}

export interface AppendBatchOptions {
  maxEventsPerSession: number;
  channel: string;
  /** This replica's subscriptions to `channel` now (1 when its subscriber is connected, else 0). */
  ownSubscriptions: () => number;
}

/**
 * The appends of every session on this replica that arrive in one turn of the event loop, sent as one
 * script call (one command and one reply, however many sessions stream at once), which is what lets
 * one replica feed 10,000 streams. The batch leaves at `setImmediate`: at once on a quiet loop, and
 * bigger the busier the loop is. Each session's events stay in order and numbered without gaps: one
 * run appends to a session at a time, and Redis runs the calls in the order they were sent.
 */
export class RedisAppendBatch {
  #pending: PendingAppend[] = [];
  #scheduled = false;

  constructor(
    private readonly redis: Redis,
    private readonly options: AppendBatchOptions,
  ) {}

  /** Appends `json` (one entry per event) to stream `key`; resolves with the last entry's seq. */
  append(key: string, notice: string, json: string[]): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.#pending.push({ key, notice, json, resolve, reject });
      if (this.#scheduled) return;
      this.#scheduled = true;
      setImmediate(this.#flush);
    });
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    const pending = this.#pending;
    this.#pending = [];
    for (let i = 0; i < pending.length; i += MAX_BATCH) void this.#send(pending.slice(i, i + MAX_BATCH));
  };

  async #send(batch: PendingAppend[]): Promise<void> {
    const { maxEventsPerSession, channel, ownSubscriptions } = this.options;
    const keys = batch.map((append) => append.key);
    const args: Array<string | number> = [maxEventsPerSession, channel, ownSubscriptions()];
    for (const append of batch) args.push(append.json.length, append.notice, ...append.json);
    try {
      const lastSeqs = (await APPEND.run(this.redis, keys, args)) as number[];
      for (const [i, append] of batch.entries()) append.resolve(Number(lastSeqs[i]));
    } catch (error) {
      for (const append of batch) append.reject(error);
    }
  }
}
