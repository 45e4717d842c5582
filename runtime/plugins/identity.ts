/**
 * Who a call is made for, as the plugins count and cache it. The client is
 * the authenticated user where incoming authentication names one, else the
 * client's address: a client that opens many sessions is still one client
 * to a rate limit. Cached answers are kept apart more finely (the user,
 * else the session): clients behind one address must never see each
 * other's answers.
 */
import type { CallerContext } from '../routing/caller.js';

/** `per: client`, and `identity` in a plugin of your own. */
export function clientIdentity(caller: CallerContext): string {
  if (caller.userId !== undefined) return `user:${caller.userId}`;
  if (caller.clientIp !== undefined && caller.clientIp !== '') return `ip:${caller.clientIp}`;
  return `session:${caller.sessionId}`;
}

/** Whose cached answers a call may see. */
export function cacheIdentity(caller: CallerContext): string {
  return caller.userId !== undefined ? `user:${caller.userId}` : `session:${caller.sessionId}`;
}
