/**
 * Acting for the caller (`auth.on_behalf_of.type: token_exchange`): the
 * caller's validated incoming token is exchanged (RFC 8693) at the
 * configured authorization server for one meant for the backend, and that
 * token is kept per (identity, backend) until shortly before it expires:
 * a call pays a map lookup, not a round trip. When the answer came with a
 * refresh token, an expiring token is refreshed with it (RFC 6749 section 6),
 * else exchanged again with the caller's current token.
 *
 * One exchange at a time per key (single flight): a burst of one user's
 * calls makes one request. A caller never gets another's token: the key is
 * the identity (its type and user id) and the backend, and a token is only
 * ever handed to a caller of that key. No token (the caller's, the
 * exchanged one, a refresh token) is logged or put in an error: a refusal
 * names the backend, the token endpoint and the issuer's error code.
 */
import { LRUCache } from 'lru-cache';
import type { TokenExchangeSpec } from '../../schemas/config.js';
import { TokenExchangeRefusedError } from './errors.js';
import { TokenEndpoints } from './token-endpoints.js';
import { postTokenRequest, type TokenResponse } from './token-request.js';

const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
/** Renewed this long before it expires (or at half its life, when that is shorter): a call never carries a token about to lapse. */
const RENEW_BEFORE_MS = 60_000;
/** A token whose lifetime the server did not say is kept this long. */
const UNKNOWN_LIFETIME_MS = 60_000;
const MAX_ENTRIES = 10_000;

/** Who a token is obtained for: an authenticated caller and its validated incoming token. */
export interface OnBehalfOf {
  /** The identity's kind and id (runtime/access/identity.ts): the key of its tokens. */
  type: string;
  userId: string;
  /** The caller's validated bearer token (CallerIdentity.token). */
  token: string;
}

interface Entry {
  accessToken: string;
  refreshToken?: string;
  renewAt: number;
}

export interface TokenExchangeOptions {
  fetch?: typeof fetch;
  now?: () => number;
  timeoutMs?: number;
}

export class TokenExchanger {
  private readonly entries = new LRUCache<string, Entry>({ max: MAX_ENTRIES });
  private readonly inFlight = new Map<string, Promise<string>>();
  /** One key space per spec object: a reload that changes a backend's `on_behalf_of` starts afresh. */
  private readonly specIds = new WeakMap<TokenExchangeSpec, number>();
  private nextSpecId = 0;
  private readonly endpoints: TokenEndpoints;
  private readonly fetchFn: typeof fetch;
  private readonly now: () => number;
  private readonly timeoutMs: number;

  constructor(opts: TokenExchangeOptions = {}) {
    this.fetchFn = opts.fetch ?? fetch;
    this.now = opts.now ?? Date.now;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.endpoints = new TokenEndpoints(this.fetchFn);
  }

  /** The caller's token for `backend`: cached while fresh, else exchanged (or refreshed) once for every call waiting on it. */
  tokenFor(backend: string, spec: TokenExchangeSpec, caller: OnBehalfOf): Promise<string> {
    const key = this.keyOf(backend, spec, caller);
    const fresh = this.cached(key);
    if (fresh !== undefined) return Promise.resolve(fresh);
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.obtain(key, backend, spec, caller).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  /** The cached token of a key when it is not due for renewal: the per-call path. */
  cached(key: string): string | undefined {
    const entry = this.entries.get(key);
    return entry !== undefined && this.now() < entry.renewAt ? entry.accessToken : undefined;
  }

  keyOf(backend: string, spec: TokenExchangeSpec, caller: Pick<OnBehalfOf, 'type' | 'userId'>): string {
    let id = this.specIds.get(spec);
    if (id === undefined) this.specIds.set(spec, (id = this.nextSpecId++));
    return `${backend}\u0000${id}\u0000${caller.type}\u0000${caller.userId}`;
  }

  /** Forgets every token of a caller (it signed out, or its rights changed). */
  forget(caller: Pick<OnBehalfOf, 'type' | 'userId'>): void {
    const suffix = `\u0000${caller.type}\u0000${caller.userId}`;
    for (const key of [...this.entries.keys()]) if (key.endsWith(suffix)) this.entries.delete(key);
  }

  private async obtain(key: string, backend: string, spec: TokenExchangeSpec, caller: OnBehalfOf): Promise<string> {
    const endpoint = await this.endpoints.resolve(backend, spec);
    // A refresh token outlives the access token it came with: it is tried even for an expired one.
    const refreshToken = this.entries.get(key)?.refreshToken;
    let response: TokenResponse | undefined;
    if (refreshToken !== undefined) {
      // A refused refresh is not the caller's fault: the exchange below asks afresh.
      response = await this.request(backend, spec, endpoint, { grant_type: 'refresh_token', refresh_token: refreshToken }).catch((err) => {
        if (err instanceof TokenExchangeRefusedError) return undefined;
        throw err;
      });
    }
    const refreshed = response !== undefined;
    response ??= await this.request(backend, spec, endpoint, {
      grant_type: GRANT,
      subject_token: caller.token,
      subject_token_type: ACCESS_TOKEN_TYPE,
      requested_token_type: ACCESS_TOKEN_TYPE,
      audience: spec.audience,
      ...(spec.scopes?.length ? { scope: spec.scopes.join(' ') } : {}),
    });
    // A refresh answer without a new refresh token leaves the old one in force (RFC 6749 section 6).
    this.entries.set(key, this.entryOf(response, refreshed ? refreshToken : undefined));
    return response.access_token;
  }

  private request(backend: string, spec: TokenExchangeSpec, endpoint: string, form: Record<string, string>): Promise<TokenResponse> {
    return postTokenRequest(endpoint, form, {
      backend,
      clientId: spec.client_id,
      clientSecret: spec.client_secret,
      method: spec.token_endpoint_auth_method ?? 'client_secret_basic',
      fetch: this.fetchFn,
      timeoutMs: this.timeoutMs,
    });
  }

  private entryOf(response: TokenResponse, keptRefreshToken: string | undefined): Entry {
    const now = this.now();
    const lifetime = typeof response.expires_in === 'number' && response.expires_in > 0 ? response.expires_in * 1000 : UNKNOWN_LIFETIME_MS;
    const refreshToken = response.refresh_token ?? keptRefreshToken;
    return {
      accessToken: response.access_token,
      ...(refreshToken !== undefined ? { refreshToken } : {}),
      renewAt: now + lifetime - Math.min(RENEW_BEFORE_MS, lifetime / 2),
    };
  }
}
