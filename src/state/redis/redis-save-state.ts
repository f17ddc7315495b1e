/**
 * Lua: `save_state(hash, index, expected, payload, sessionId, updatedAt)`, the compare-and-set of one
 * session's save (`redisSavePayload` encodes it). Returns `1, new version`, or `0, the version found`
 * (a patch whose base is not the stored head also answers 0, with the version it found). Also used by
 * the service's Redis backend, whose run end saves the state in the same script as it logs the events.
 *
 * The session's hash holds `version`, `updatedAt`, `state` (the snapshot, saved at version `base`),
 * `head` (the last save's id) and one field `p:<version>` per patch after the snapshot. A payload is
 * `P<base head><head><patch JSON>`, `S<head><state JSON>` (a snapshot, which drops the patches before
 * it), or a plain state JSON (a snapshot without a head, as callers of older versions send).
 */
export const REDIS_SAVE_STATE_LUA = `
local function save_state(hash, index, expected, payload, id, updatedAt)
  local found = redis.call('HMGET', hash, 'version', 'head', 'base')
  local actual = tonumber(found[1] or '0')
  if actual ~= tonumber(expected) then return 0, actual end
  local version = actual + 1
  local kind = string.sub(payload, 1, 1)
  if kind == 'P' then
    if found[2] ~= string.sub(payload, 2, 33) then return 0, actual end
    redis.call('HSET', hash, 'version', version, 'head', string.sub(payload, 34, 65), 'updatedAt', updatedAt,
      'p:' .. version, string.sub(payload, 66))
  else
    for v = tonumber(found[3] or actual) + 1, actual do redis.call('HDEL', hash, 'p:' .. v) end
    if kind == 'S' then
      redis.call('HSET', hash, 'version', version, 'state', string.sub(payload, 34), 'updatedAt', updatedAt,
        'head', string.sub(payload, 2, 33), 'base', version)
    else
      redis.call('HSET', hash, 'version', version, 'state', payload, 'updatedAt', updatedAt)
      redis.call('HDEL', hash, 'head', 'base')
    end
  end
  redis.call('ZADD', index, 0, id)
  return 1, version
end`;
