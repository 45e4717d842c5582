/**
 * What the providers of one OAuth backend share: its config, its token
 * store, the last challenge the backend sent (WWW-Authenticate on a 401 or
 * 403) and why a stored authorization was lost. The connection's provider
 * and a re-authentication flow's provider both read and write it, so a
 * completed flow is seen by the next request at once.
 */
import { extractWWWAuthenticateParams } from '@modelcontextprotocol/client';
import type { BackendAuth } from '../../schemas/config.js';
import type { Logger } from '../observability/logging/logger.js';
import type { AuthorizationStore } from './token-store.js';

export type OAuthSpec = Extract<BackendAuth, { type: 'oauth' }>;

/** What the backend last said about authorization (RFC 6750 / RFC 9728 `WWW-Authenticate`). */
export interface Challenge {
  status: 401 | 403;
  error?: string;
  scope?: string;
  resourceMetadataUrl?: URL;
}

export class OAuthBackendState {
  /** The last 401/403 challenge since tokens were last saved. */
  challenge?: Challenge;
  /** Set when the authorization server rejected what was stored; the "why" of AuthorizationRequired. */
  lostBecause?: string;

  constructor(
    readonly name: string,
    readonly serverUrl: URL,
    readonly spec: OAuthSpec,
    readonly store: AuthorizationStore,
    readonly log?: Logger,
    /** The authorization server, when the config names it (`on_behalf_of.issuer`): then no discovery through the backend. */
    readonly issuer?: string,
  ) {}

  get grant(): 'authorization_code' | 'client_credentials' {
    return this.spec.grant ?? 'authorization_code';
  }

  /** Notes what a 401 or 403 answer of the backend said (its transport tells every one). */
  noteChallenge(status: 401 | 403, res: Response): void {
    // Only a Bearer challenge is about our token (an authorization server's 401 is not).
    if (!/^\s*bearer\b/i.test(res.headers.get('www-authenticate') ?? '')) return;
    const { scope, resourceMetadataUrl, error } = extractWWWAuthenticateParams(res);
    // A 403 for another reason than scope is not an authorization matter.
    if (status === 403 && error !== 'insufficient_scope') return;
    this.challenge = { status, error, scope, resourceMetadataUrl };
  }

  /**
   * The backend asked for a scope the current token lacks (403
   * insufficient_scope). A refresh cannot add a scope; only the user can.
   */
  get stepUpScope(): string | undefined {
    const c = this.challenge;
    if (c?.status !== 403 || !c.scope) return undefined;
    const granted = this.store.tokens?.scope;
    return granted !== undefined && covers(granted, c.scope) ? undefined : c.scope;
  }

  /**
   * The scope a new authorization asks for: the configured scopes plus what
   * the backend last demanded (and, on a step-up, what was already granted,
   * so that the new token loses nothing). Undefined lets the SDK fall back to
   * the protected resource's `scopes_supported`.
   */
  flowScope(): string | undefined {
    const parts = [...(this.spec.scopes ?? [])];
    if (this.challenge?.scope) parts.push(...split(this.challenge.scope));
    if (this.stepUpScope !== undefined && this.store.tokens?.scope) parts.push(...split(this.store.tokens.scope));
    const unique = [...new Set(parts)];
    return unique.length > 0 ? unique.join(' ') : undefined;
  }

  /** After new tokens were saved: a challenge they answer is settled. */
  tokensSaved(): void {
    this.lostBecause = undefined;
    if (this.stepUpScope === undefined) this.challenge = undefined;
  }

  /** Why the user has to authorize, in a few words. */
  whyAuthorizationIsNeeded(): string {
    const stepUp = this.stepUpScope;
    if (stepUp !== undefined) return `the backend requires scope "${stepUp}"`;
    if (this.lostBecause) return this.lostBecause;
    if (this.store.tokens) return 'the access token was rejected and cannot be refreshed';
    return 'not authorized yet';
  }
}

function split(scope: string): string[] {
  return scope.split(/\s+/).filter(Boolean);
}

function covers(granted: string, wanted: string): boolean {
  const have = new Set(split(granted));
  return split(wanted).every((s) => have.has(s));
}
