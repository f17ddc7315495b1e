import type { Redis } from "ioredis";
import { LoopTurnBatch } from "../loop-turn-batch.js";
import { RedisScript } from "./redis-script.js";

/**
 * Lua shared by the scripts that log events. \`holds(lock, token)\`: the fence of a run's write, whether
 * its lease (the lock's value, \`<owner>#<generation>\`) still holds the session ('' for a write
 * without a lease). `last_seq(stream)`: the seq of a session's newest event (0
 * when none). `add_events(stream, max, seq, from, count)`: adds ARGV[from .. from + count - 1] (events'
 * JSON) after `seq`, trimming the stream to `max`; returns the new last seq. Entry ids are `0-<seq>`, so
 * seq survives trimming. `others_listen(channel, own)`: whether a replica besides this one (`own`: its
 * own subscriptions) listens on the bus channel; a notice goes out only then (the sender would only
 * skip its own echo).
 */
export const REDIS_LOG_LUA = `
local function last_seq(stream)
  local last = redis.call('XREVRANGE', stream, '+', '-', 'COUNT', 1)
  if #last == 0 then return 0 end
  return tonumber(string.match(last[1][1], '%-(%d+)$'))
end
local function add_events(stream, max, seq, from, count)
  for i = from, from + count - 1 do
    seq = seq + 1
    redis.call('XADD', stream, 'MAXLEN', max, '0-' .. seq, 'e', ARGV[i])
  end
  return seq
end
local function others_listen(channel, own)
  return redis.call('PUBSUB', 'NUMSUB', channel)[2] > tonumber(own)
end
local function holds(lock, token)
  return token == '' or redis.call('GET', lock) == token
end`;

/**
 * KEYS: per append its stream and its lock. ARGV: max length, bus channel, this replica's own
 * subscriptions to the channel (1, or 0 while its subscriber reconnects), then per append: its event
 * count, its bus notice, its lease's token ('' for none), its events' JSON. Returns the last seq per
 * append, or -1 for one whose lease no longer holds its session (fenced: nothing written or told).
 */
const APPEND = new RedisScript(`${REDIS_LOG_LUA}
local max, channel = ARGV[1], ARGV[2]
local notify = others_listen(channel, ARGV[3])
local out = {}
local a = 4
for k = 1, #KEYS, 2 do
  local count, notice, token = tonumber(ARGV[a]), ARGV[a + 1], ARGV[a + 2]
  if holds(KEYS[k + 1], token) then
    out[#out + 1] = add_events(KEYS[k], max, last_seq(KEYS[k]), a + 3, count)
    if notify then redis.call('PUBLISH', channel, notice) end
  else
    out[#out + 1] = -1
  end
  a = a + 3 + count
end
return out`);

/** One session's append: its stream and lock, the notice for other replicas, its events' JSON. */
export interface StreamAppend {
  key: string;
  lock: string;
  /** The token of the run's lease (the lock's value), '' for an append without a lease. */
  token: string;
  notice: string;
  json: string[];
}

export interface AppendBatchOptions {
  maxEventsPerSession: number;
  channel: string;
  /** This replica's subscriptions to `channel` now (1 when its subscriber is connected, else 0). */
  ownSubscriptions: () => number;
}

/**
 * The appends of every session on this replica made in one turn of the event loop, as one script
 * call, which is what lets one replica feed thousands of streams (a call per event cost a command, a
 * reply and a Lua run each). Resolves with each append's last seq (-1: fenced). Each session's events stay in order
 * and numbered without gaps: one run appends to a session at a time, and Redis runs the calls in the
 * order they were sent.
 */
export function redisAppendBatch(
  redis: Redis,
  options: AppendBatchOptions,
): LoopTurnBatch<StreamAppend, number> {
  return new LoopTurnBatch(async (appends) => {
    const args: Array<string | number> = [
      options.maxEventsPerSession,
      options.channel,
      options.ownSubscriptions(),
    ];
    const keys: string[] = [];
    for (const append of appends) {
      keys.push(append.key, append.lock);
      args.push(append.json.length, append.notice, append.token, ...append.json);
    }
    return ((await APPEND.run(redis, keys, args)) as number[]).map(Number);
  });
}
