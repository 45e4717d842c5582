/**
 * Where the signing keys of JWT access tokens come from: the JWKS at
 * `jwks_uri` (`jwt`), or at the `jwks_uri` OpenID discovery finds for the
 * issuer (`oidc`). jose's remote key set caches the keys and refetches for
 * an unknown `kid` at most once per cooldown (30 s): a rotated key is picked
 * up within a minute, and a flood of made-up `kid`s cannot hammer the
 * identity provider.
 *
 * A key set that cannot be fetched (the provider is down, answers garbage)
 * is the gateway's problem, not the client's: 503 `service_unavailable`,
 * never a 401 that would send the client to sign in again.
 */
import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';
import { GatewayError } from '../../schemas/errors.js';

export const JWKS_COOLDOWN_MS = 30_000;
/** How long a failed discovery is remembered before it is tried again (requests meanwhile get 503 at once). */
const DISCOVERY_RETRY_MS = 10_000;
const FETCH_TIMEOUT_MS = 5_000;

/** Errors of choosing a key from a key set that was fetched: the token's fault. */
const KEY_CHOICE_ERRORS = new Set(['ERR_JWKS_NO_MATCHING_KEY', 'ERR_JWKS_MULTIPLE_MATCHING_KEYS']);

export function keysUnavailable(why: string): GatewayError {
  return new GatewayError('service_unavailable', `Service unavailable: the identity provider's signing keys could not be fetched (${why})`, {
    reason: 'identity_provider_unreachable',
  });
}

export interface KeySourceOptions {
  /** Tests shorten it to see a rotation without waiting. */
  cooldownMs?: number;
}

/** A key resolver for jwtVerify whose fetch failures are told apart from the token's own faults. */
export function remoteKeys(jwksUri: string, opts: KeySourceOptions = {}): JWTVerifyGetKey {
  const set = createRemoteJWKSet(new URL(jwksUri), { cooldownDuration: opts.cooldownMs ?? JWKS_COOLDOWN_MS, timeoutDuration: FETCH_TIMEOUT_MS });
  return async (header, token) => {
    try {
      return await set(header, token);
    } catch (err) {
      if (KEY_CHOICE_ERRORS.has((err as { code?: string }).code ?? '')) throw err;
      throw keysUnavailable(describe(err));
    }
  };
}

/** `oidc`: the key set of the `jwks_uri` that the issuer's OpenID configuration names, found on first use. */
export function discoveredKeys(issuer: string, opts: KeySourceOptions = {}): JWTVerifyGetKey {
  let keys: JWTVerifyGetKey | undefined;
  let pending: Promise<JWTVerifyGetKey> | undefined;
  let failed: { at: number; why: string } | undefined;
  const discover = async (): Promise<JWTVerifyGetKey> => {
    const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    const res = await fetch(url, { headers: { accept: 'application/json' }, redirect: 'error', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
    const doc = (await res.json()) as { issuer?: unknown; jwks_uri?: unknown };
    // OpenID Connect Discovery 1.0, section 4.3: the document must name the issuer it was fetched for.
    if (doc.issuer !== issuer) throw new Error(`${url} names issuer ${JSON.stringify(doc.issuer)}, not ${issuer}`);
    if (typeof doc.jwks_uri !== 'string' || !/^https?:\/\//.test(doc.jwks_uri)) throw new Error(`${url} has no usable jwks_uri`);
    return remoteKeys(doc.jwks_uri, opts);
  };
  return async (header, token) => {
    if (!keys) {
      if (failed && Date.now() - failed.at < DISCOVERY_RETRY_MS) throw keysUnavailable(failed.why);
      pending ??= discover().finally(() => (pending = undefined));
      try {
        keys = await pending;
        failed = undefined;
      } catch (err) {
        failed = { at: Date.now(), why: `OpenID discovery: ${describe(err)}` };
        throw keysUnavailable(failed.why);
      }
    }
    return keys(header, token);
  };
}

function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: string } }).cause?.code;
  const message = err instanceof Error ? err.message : String(err);
  return cause ? `${message}: ${cause}` : message;
}
