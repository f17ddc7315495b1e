/**
 * Lua: `save_state(hash, index, expected, json, sessionId, updatedAt)`, the compare-and-set of one
 * session's state. Returns `1, new version`, or `0, the version found`. Also used by the service's
 * Redis backend, whose run end saves the state in the same script as it logs the events.
 */
export const REDIS_SAVE_STATE_LUA = `
local function save_state(hash, index, expected, json, id, updatedAt)
  local actual = tonumber(redis.call('HGET', hash, 'version') or '0')
  if actual ~= tonumber(expected) then return 0, actual end
  redis.call('HSET', hash, 'version', actual + 1, 'state', json, 'updatedAt', updatedAt)
  redis.call('ZADD', index, 0, id)
  return 1, actual + 1
end`;
