import type { Redis } from "ioredis";
import { LoopTurnBatch } from "../loop-turn-batch.js";
import { type AppendBatchOptions, REDIS_LOG_LUA } from "./redis-append-batch.js";
import { REDIS_SAVE_STATE_LUA } from "./redis-save-state.js";
import { RedisScript } from "./redis-script.js";

/**
 * KEYS: the saved sessions' index, the runs index, then per run: its stream, its state hash, its lock.
 * ARGV: max length, bus channel, this replica's own subscriptions to it, updatedAt, then per run:
 * session id, its lease's token ('' for none), whether it releases the lock (1 for a run's end, 0 for
 * a checkpoint, which keeps it), bus notice, the count of events before the save and their JSON,
 * whether to save (1/0), the expected version and the state's JSON, the count of end events and their
 * JSON (the notice goes out only when it logged events). Returns per run: the last seq (-1 when its
 * lease no longer holds the session: fenced, nothing written), whether the state was saved, and the
 * new version (or the one found). Each run's steps happen in the order `RunEnd` gives, and
 * atomically (a script runs alone).
 */
const END = new RedisScript(`${REDIS_LOG_LUA}${REDIS_SAVE_STATE_LUA}
local max, channel, updatedAt = ARGV[1], ARGV[2], ARGV[4]
local notify = others_listen(channel, ARGV[3])
local out = {}
local a = 5
for k = 3, #KEYS, 3 do
  local stream, hash, lock = KEYS[k], KEYS[k + 1], KEYS[k + 2]
  local id, token, releases, notice = ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3]
  local count = tonumber(ARGV[a + 4])
  local before, saves, expected, state = a + 5, ARGV[a + 5 + count], ARGV[a + 6 + count], ARGV[a + 7 + count]
  local ends = tonumber(ARGV[a + 8 + count])
  local after = a + 9 + count
  a = after + ends
  if holds(lock, token) then
    local seq = add_events(stream, max, last_seq(stream), before, count)
    local saved, version = 0, 0
    if saves == '1' then saved, version = save_state(hash, KEYS[1], expected, state, id, updatedAt) end
    seq = add_events(stream, max, seq, after, ends)
    if releases == '1' and token ~= '' then
      redis.call('DEL', lock)
      redis.call('ZREM', KEYS[2], id)
    end
    if notify and count + ends > 0 then redis.call('PUBLISH', channel, notice) end
    out[#out + 1] = seq
    out[#out + 1] = saved
    out[#out + 1] = version
  else
    out[#out + 1] = -1
    out[#out + 1] = 0
    out[#out + 1] = 0
  end
end
return out`);

/** One run's end, as the script takes it. */
export interface RedisRunEnd {
  sessionId: string;
  stream: string;
  stateKey: string;
  lock: string;
  /** The token of the run's lease (the lock's value), '' for a write without a lease. */
  token: string;
  /** Whether the write frees the lock (a run's end) or keeps it (a checkpoint). */
  releases: boolean;
  notice: string;
  /** The JSON of the events logged before the save. */
  json: string[];
  save?: { expected: number; json: string };
  /** The JSON of the end events. */
  endJson: string[];
}

export interface RedisRunEndResult {
  /** -1: fenced (the lease no longer holds the session; nothing was written). */
  lastSeq: number;
  saved: boolean;
  /** The new version when saved, else the one the store has. */
  version: number;
}

/**
 * The ends of every run on this replica in one turn of the event loop, as one script call: each run's
 * last events, its final save, its end events and its lock's release, in one round trip (they were
 * four, one after the other).
 */
export function redisRunEndBatch(
  redis: Redis,
  options: AppendBatchOptions & { index: string; runs: string },
): LoopTurnBatch<RedisRunEnd, RedisRunEndResult> {
  return new LoopTurnBatch(async (ends) => {
    const keys = [options.index, options.runs];
    const args: Array<string | number> = [
      options.maxEventsPerSession,
      options.channel,
      options.ownSubscriptions(),
      new Date().toISOString(),
    ];
    for (const end of ends) {
      keys.push(end.stream, end.stateKey, end.lock);
      args.push(end.sessionId, end.token, end.releases ? 1 : 0, end.notice, end.json.length, ...end.json);
      if (end.save) args.push(1, end.save.expected, end.save.json);
      else args.push(0, 0, "");
      args.push(end.endJson.length, ...end.endJson);
    }
    const out = (await END.run(redis, keys, args)) as number[];
    return ends.map((_, i) => ({
      lastSeq: Number(out[3 * i]),
      saved: out[3 * i + 1] === 1,
      version: Number(out[3 * i + 2]),
    }));
  });
}
