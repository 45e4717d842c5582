/**
 * Who a client is, as the front door established it: plain data, so a
 * session can carry it and a shared session table can store it. An
 * anonymous caller has no user id and no roles.
 */
import type { IncomingAuthType } from '../../schemas/access-config.js';

export interface CallerIdentity {
  /** How it was established (`incoming_auth.type` at the time). */
  type: IncomingAuthType;
  /** The JWT `sub` (else its `client_id`), or the local token's `name`; absent for anonymous callers. */
  userId?: string;
  /** Sorted, each once: what the policies see. */
  roles: readonly string[];
}

export const ANONYMOUS: CallerIdentity = Object.freeze({ type: 'anonymous', roles: Object.freeze([]) as readonly string[] });

export function identityOf(type: IncomingAuthType, userId: string, roles: Iterable<string>): CallerIdentity {
  return { type, userId, roles: [...new Set(roles)].sort() };
}

/**
 * Whether two identities are the same owner: a session belongs to the
 * identity that created it, and a request with another one's credentials may
 * not use it. Roles may differ (a refreshed token, a reload): same owner.
 */
export function sameOwner(a: CallerIdentity, b: CallerIdentity): boolean {
  return a.type === b.type && a.userId === b.userId;
}
