import { RedisScript } from "./redis-script.js";

/**
 * Lua shared by the lease scripts. `now_ms()`: Redis's own clock in ms (the one `PX` expires keys
 * by, whatever the replicas' clocks say). The runs index (a sorted set of session ids scored by when
 * their lease expires) is what the recovery sweeper reads: a lease key that expired is gone, its
 * index entry stays until the session's lease is taken and released again.
 */
const NOW_LUA = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end`;

/**
 * KEYS: lock, the store's lease counter, the runs index. ARGV: owner, ttl, session id. Takes a free
 * lock: the counter goes up and the lock's value is `<owner>#<generation>` (the lease's token, which
 * every fenced write compares); returns the generation, or 0 when the lock is held.
 */
export const ACQUIRE = new RedisScript(`${NOW_LUA}
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local generation = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. '#' .. generation, 'PX', ARGV[2])
redis.call('ZADD', KEYS[3], now_ms() + tonumber(ARGV[2]), ARGV[3])
return generation`);

/**
 * KEYS: the runs index, then lock keys. ARGV: ttl, then per key its token and session id. Extends
 * each lock its token still holds (an expired one is gone: lost, never renewed), and its index entry.
 */
export const RENEW = new RedisScript(`${NOW_LUA}
local out = {}
local expires = now_ms() + tonumber(ARGV[1])
for k = 2, #KEYS do
  local a = 2 * k - 2
  if redis.call('GET', KEYS[k]) == ARGV[a] then
    out[k - 1] = redis.call('PEXPIRE', KEYS[k], ARGV[1])
    redis.call('ZADD', KEYS[1], 'XX', expires, ARGV[a + 1])
  else
    out[k - 1] = 0
  end
end
return out`);

/**
 * KEYS: the runs index, then lock keys. ARGV: per key its token and session id. Deletes each lock its
 * token still holds, and its index entry.
 */
export const RELEASE = new RedisScript(`
local out = {}
for k = 2, #KEYS do
  local a = 2 * k - 3
  if redis.call('GET', KEYS[k]) == ARGV[a] then
    out[k - 1] = redis.call('DEL', KEYS[k])
    redis.call('ZREM', KEYS[1], ARGV[a + 1])
  else
    out[k - 1] = 0
  end
end
return out`);

/** KEYS: the runs index. ARGV: limit. Session ids whose lease expired by Redis's clock, oldest first. */
export const EXPIRED = new RedisScript(`${NOW_LUA}
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now_ms(), 'LIMIT', 0, tonumber(ARGV[1]))`);

/** The generation in a lock's value (`<owner>#<generation>`); 0 for a value without one. */
export function generationOf(token: string): number {
  const at = token.lastIndexOf("#");
  const generation = at < 0 ? Number.NaN : Number(token.slice(at + 1));
  return Number.isSafeInteger(generation) ? generation : 0;
}
