import type { Redis } from "ioredis";
import { LoopTurnBatch } from "../../../state/loop-turn-batch.js";
import { REDIS_SAVE_STATE_LUA } from "../../../state/redis-save-state.js";
import { RedisScript } from "../../../state/redis-script.js";
import { type AppendBatchOptions, REDIS_LOG_LUA } from "./redis-append-batch.js";

/**
 * KEYS: the saved sessions' index, then per run: its stream, its state hash, its lock. ARGV: max length,
 * bus channel, this replica's own subscriptions to it, updatedAt, then per run: session id, lock owner
 * ('' for a checkpoint, which keeps the lock),
 * bus notice, the count of events before the save and their JSON, whether to save (1/0), the expected
 * version and the state's JSON, the count of end events and their JSON (the notice goes out only when
 * it logged events). Returns per run: the last seq,
 * whether the state was saved, and the new version (or the one found). Each run's steps happen in the
 * order `RunEnd` gives, and atomically (a script runs alone).
 */
const END = new RedisScript(`${REDIS_LOG_LUA}${REDIS_SAVE_STATE_LUA}
local max, channel, updatedAt = ARGV[1], ARGV[2], ARGV[4]
local notify = others_listen(channel, ARGV[3])
local out = {}
local a = 5
for k = 2, #KEYS, 3 do
  local stream, hash, lock = KEYS[k], KEYS[k + 1], KEYS[k + 2]
  local id, owner, notice, count = ARGV[a], ARGV[a + 1], ARGV[a + 2], tonumber(ARGV[a + 3])
  local seq = add_events(stream, max, last_seq(stream), a + 4, count)
  local logged = count
  a = a + 4 + count
  local saved, version = 0, 0
  if ARGV[a] == '1' then saved, version = save_state(hash, KEYS[1], ARGV[a + 1], ARGV[a + 2], id, updatedAt) end
  count = tonumber(ARGV[a + 3])
  seq = add_events(stream, max, seq, a + 4, count)
  logged = logged + count
  a = a + 4 + count
  if owner ~= '' and redis.call('GET', lock) == owner then redis.call('DEL', lock) end
  if notify and logged > 0 then redis.call('PUBLISH', channel, notice) end
  out[#out + 1] = seq
  out[#out + 1] = saved
  out[#out + 1] = version
end
return out`);

/** One run's end, as the script takes it. */
export interface RedisRunEnd {
  sessionId: string;
  stream: string;
  stateKey: string;
  lock: string;
  owner: string;
  notice: string;
  /** The JSON of the events logged before the save. */
  json: string[];
  save?: { expected: number; json: string };
  /** The JSON of the end events. */
  endJson: string[];
}

export interface RedisRunEndResult {
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
  options: AppendBatchOptions & { index: string },
): LoopTurnBatch<RedisRunEnd, RedisRunEndResult> {
  return new LoopTurnBatch(async (ends) => {
    const keys = [options.index];
    const args: Array<string | number> = [
      options.maxEventsPerSession,
      options.channel,
      options.ownSubscriptions(),
      new Date().toISOString(),
    ];
    for (const end of ends) {
      keys.push(end.stream, end.stateKey, end.lock);
      args.push(end.sessionId, end.owner, end.notice, end.json.length, ...end.json);
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
