/**
 * The Lua scripts of the shared store: each is one atomic step that would
 * otherwise race between replicas (the session limit and the record's
 * creation, activity that only moves forward, a stream's event and its
 * publication). Loaded with ioredis' defineCommand (EVALSHA, loaded again
 * after a Redis restart).
 */
import type { ChainableCommander, Redis } from 'ioredis';

const SCRIPTS = {
  /**
   * KEYS: record, index. ARGV: now, expires_at, max, id, field, value, …
   * Creates the record unless the cluster already has `max` live sessions: 1 made, 0 refused.
   */
  gwCreateSession: {
    numberOfKeys: 2,
    lua: `
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 5))
redis.call('PEXPIREAT', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[4])
return 1`,
  },
  /**
   * KEYS: record, index. ARGV: last_activity, expires_at, replica (JSON), id.
   * Moves the activity (and expiry) forward, never back: 1, or 0 when the session is gone.
   */
  gwTouchSession: {
    numberOfKeys: 2,
    lua: `
local current = redis.call('HGET', KEYS[1], 'last_activity')
if not current then
  redis.call('ZREM', KEYS[2], ARGV[4])
  return 0
end
if tonumber(current) < tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'last_activity', ARGV[1], 'replica', ARGV[3])
  redis.call('PEXPIREAT', KEYS[1], ARGV[2])
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[4])
end
return 1`,
  },
  /** KEYS: record. ARGV: field, value, … Sets fields of a session that exists: 1, or 0 when it is gone. */
  gwUpdateSession: {
    numberOfKeys: 1,
    lua: `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1`,
  },
  /**
   * KEYS: record. ARGV: uri, '1' to add or '0' to remove.
   * The session's subscriptions afterwards (JSON), or nil when it is gone.
   */
  gwSubscription: {
    numberOfKeys: 1,
    lua: `
local raw = redis.call('HGET', KEYS[1], 'subscriptions')
if not raw then return false end
local list = cjson.decode(raw)
local out = {}
for _, uri in ipairs(list) do
  if uri ~= ARGV[1] then table.insert(out, uri) end
end
if ARGV[2] == '1' then table.insert(out, ARGV[1]) end
local json = '[]'
if #out > 0 then json = cjson.encode(out) end
redis.call('HSET', KEYS[1], 'subscriptions', json)
return json`,
  },
  /**
   * KEYS: stream. ARGV: id ('*' or explicit), payload, keep_ms, only_if_exists ('1'/'0'), min_id ('' for none), max_len.
   * Appends an event, trims what is older than the replay window, and
   * publishes '<id> <payload>' on the stream's channel: its id, or nil when
   * only_if_exists and the stream is gone (no GET stream is open or lingering).
   */
  gwAppendEvent: {
    numberOfKeys: 1,
    lua: `
if ARGV[4] == '1' and redis.call('EXISTS', KEYS[1]) == 0 then return false end
local id
if ARGV[5] ~= '' then
  id = redis.call('XADD', KEYS[1], 'MINID', '~', ARGV[5], ARGV[1], 'd', ARGV[2])
else
  id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[6], ARGV[1], 'd', ARGV[2])
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PUBLISH', KEYS[1], id .. ' ' .. ARGV[2])
return id`,
  },
  /**
   * KEYS: a rate_limiter window. ARGV: window_ms.
   * Counts one call in the key's fixed window, starting the window (its
   * expiry) with the first call: {count, ms left}. A script rather than
   * MULTI INCR+PEXPIRE: PEXPIRE on every call would push the window's end
   * forward with each call (PEXPIRE NX needs Redis 7; the gateway supports
   * 6.2), and the time left comes back in the same round trip, measured on
   * Redis' clock (replicas' clocks may differ).
   */
  gwRateHit: {
    numberOfKeys: 1,
    lua: `
local count = redis.call('INCR', KEYS[1])
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
return {count, left}`,
  },
} as const;

export type ScriptName = keyof typeof SCRIPTS;
type Arg = string | number;

/** Defines every script on a client (once per client). */
export function defineScripts(client: Redis): void {
  for (const [name, def] of Object.entries(SCRIPTS)) client.defineCommand(name, def);
}

/** Runs a script defined by defineScripts. */
export function runScript(client: Redis, name: ScriptName, keys: string[], args: Arg[]): Promise<unknown> {
  const fn = (client as unknown as Record<ScriptName, (...a: Arg[]) => Promise<unknown>>)[name];
  return fn.call(client, ...keys, ...args);
}

/** Queues a script on a pipeline. */
export function queueScript(pipeline: ChainableCommander, name: ScriptName, keys: string[], args: Arg[]): void {
  const fn = (pipeline as unknown as Record<ScriptName, (...a: Arg[]) => unknown>)[name];
  fn.call(pipeline, ...keys, ...args);
}
