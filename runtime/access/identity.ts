/**
 * Who a client is, as the front door established it: plain data, so a
 * session can carry it and a shared session table can store it. An
 * anonymous caller has no user id and no roles.
 *
 * A JWT caller also carries its token's claims (what a policy's `when`
 * reads as `caller.claims`) and the token itself (what a token exchange on
 * its behalf presents). Both are non-enumerable properties: JSON, pino,
 * a spread or a session store never see them, so they stay in memory, out
 * of every log, record and event.
 */
import type { IncomingAuthType } from '../../schemas/access-config.js';

export interface CallerIdentity {
  /** How it was established (`incoming_auth.type` at the time). */
  type: IncomingAuthType;
  /** The JWT `sub` (else its `client_id`), or the local token's `name`; absent for anonymous callers. */
  userId?: string;
  /** Sorted, each once: what the policies see. */
  roles: readonly string[];
  /** (jwt, oidc; not enumerable) the validated token's claims. */
  readonly claims?: Readonly<Record<string, unknown>>;
  /** (jwt, oidc; not enumerable) the validated bearer token, for a token exchange on this caller's behalf. */
  readonly token?: string;
}

/** What only memory may hold of an identity. */
export interface IdentitySecrets {
  claims?: Readonly<Record<string, unknown>>;
  token?: string;
}

export const ANONYMOUS: CallerIdentity = Object.freeze({ type: 'anonymous', roles: Object.freeze([]) as readonly string[] });

export function identityOf(type: IncomingAuthType, userId: string, roles: Iterable<string>, secrets: IdentitySecrets = {}): CallerIdentity {
  const identity: CallerIdentity = { type, userId, roles: [...new Set(roles)].sort() };
  for (const [key, value] of Object.entries(secrets)) {
    if (value !== undefined) Object.defineProperty(identity, key, { value, enumerable: false });
  }
  return identity;
}

/**
 * Whether two identities are the same owner: a session belongs to the
 * identity that created it, and a request with another one's credentials may
 * not use it. Roles may differ (a refreshed token, a reload): same owner.
 */
export function sameOwner(a: CallerIdentity, b: CallerIdentity): boolean {
  return a.type === b.type && a.userId === b.userId;
}
