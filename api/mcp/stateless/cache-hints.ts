/**
 * `ttlMs` and `cacheScope` on the cacheable results of 2026-07-28 (the
 * lists and `resources/read`): how long a client may keep one, and whether
 * a shared cache may. A list is `private` whenever what it holds depends on
 * the caller (the authorization policies are on), `public` otherwise; it
 * may be kept for `server.cache_ttl_s`, and no longer than any backend
 * serving part of it said for its own list. A read is kept no longer than
 * the backend said (nothing said: not at all), and is `public` only when the
 * backend said so and nothing depends on the caller.
 */
import type { JsonObject } from '../../../runtime/routing/caller.js';

const LISTS = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']);

/**
 * Where a list result carries its backends' shortest `ttlMs` to here. A
 * symbol: never serialised, so a 2025-11-25 session's list is unchanged.
 */
const BACKENDS_TTL_MS: unique symbol = Symbol('mcp-gateway.backends-list-ttl');

export interface CacheFacts {
  /** `server.cache_ttl_s`, in ms. */
  ttlMs: number;
  /** The answer depends on who asks. */
  personal: boolean;
}

/** A list result whose backends said how long their lists may be kept (undefined: none said). */
export function withBackendsTtl<T extends object>(result: T, ttlMs: number | undefined): T {
  return ttlMs === undefined ? result : { ...result, [BACKENDS_TTL_MS]: ttlMs };
}

/** The result with its hints; `factsNow` is asked only for a cacheable result (a tool call, at rate, never is). */
export function withCacheHints(method: string, result: JsonObject, factsNow: () => CacheFacts): JsonObject {
  if (LISTS.has(method)) {
    const facts = factsNow();
    const said = (result as { [BACKENDS_TTL_MS]?: number })[BACKENDS_TTL_MS];
    return { ...result, ttlMs: said === undefined ? facts.ttlMs : Math.min(said, facts.ttlMs), cacheScope: facts.personal ? 'private' : 'public' };
  }
  if (method !== 'resources/read' || result.resultType === 'input_required') return result;
  const facts = factsNow();
  const said = typeof result.ttlMs === 'number' && result.ttlMs >= 0 ? result.ttlMs : 0;
  const shared = result.cacheScope === 'public' && !facts.personal;
  return { ...result, ttlMs: Math.min(said, facts.ttlMs), cacheScope: shared ? 'public' : 'private' };
}
