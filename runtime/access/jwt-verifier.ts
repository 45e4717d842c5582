/**
 * `incoming_auth.type: jwt` and `oidc`: a JWT access token is accepted only
 * with a valid signature by a key of the issuer's key set, an allowed
 * (asymmetric) algorithm, `exp` and `nbf` within the clock skew, the
 * configured `iss`, and an `aud` naming this gateway: a token minted for
 * another resource is refused (no token passthrough). Then the required
 * scopes. The identity is its `sub` (else `client_id`) with the roles of
 * `roles_claim` and `realm_access.roles`.
 *
 * A verified token's identity is cached until it expires (at most five
 * minutes), so a client's every request does not pay for a signature check.
 */
import { errors as jose, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { LRUCache } from 'lru-cache';
import { DEFAULT_CLOCK_SKEW_S, DEFAULT_JWT_ALGORITHMS, DEFAULT_ROLES_CLAIM, type IncomingAuthSpec } from '../../schemas/access-config.js';
import { BearerAuthError, GatewayError } from '../../schemas/errors.js';
import { identityOf, type CallerIdentity } from './identity.js';

const CACHE_MAX_ENTRIES = 10_000;
const CACHE_MAX_MS = 5 * 60_000;
/** Keycloak's place for realm roles, read besides `roles_claim`. */
const REALM_ROLES = 'realm_access.roles';

export class JwtVerifier {
  private readonly type: 'jwt' | 'oidc';
  private readonly issuer: string;
  private readonly audience: string;
  private readonly algorithms: string[];
  private readonly skewS: number;
  private readonly rolesClaims: string[];
  private readonly requiredScopes: string[];
  private readonly verified = new LRUCache<string, CallerIdentity>({ max: CACHE_MAX_ENTRIES });

  constructor(
    spec: IncomingAuthSpec & { type: 'jwt' | 'oidc'; issuer: string; audience: string },
    private readonly keys: JWTVerifyGetKey,
  ) {
    this.type = spec.type;
    this.issuer = spec.issuer;
    this.audience = spec.audience;
    this.algorithms = [...(spec.algorithms ?? DEFAULT_JWT_ALGORITHMS)];
    this.skewS = spec.clock_skew_s ?? DEFAULT_CLOCK_SKEW_S;
    this.rolesClaims = [...new Set([spec.roles_claim ?? DEFAULT_ROLES_CLAIM, REALM_ROLES])];
    this.requiredScopes = spec.required_scopes ?? [];
  }

  async identify(token: string): Promise<CallerIdentity> {
    const cached = this.verified.get(token);
    if (cached) return cached;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.keys, {
        issuer: this.issuer,
        audience: this.audience,
        algorithms: this.algorithms,
        clockTolerance: this.skewS,
        requiredClaims: ['exp'],
      }));
    } catch (err) {
      throw refusal(err);
    }
    const missing = this.requiredScopes.filter((s) => !scopesOf(payload).has(s));
    if (missing.length > 0) {
      throw new BearerAuthError(`Forbidden: the access token lacks the scope ${missing.join(', ')}`, {
        error: 'insufficient_scope',
        description: `missing scope ${missing.join(' ')}`,
        scope: this.requiredScopes.join(' '),
      });
    }
    const userId = [payload.sub, payload.client_id].find((v): v is string => typeof v === 'string' && v.length > 0);
    if (userId === undefined) throw invalid('no subject');
    const identity = identityOf(
      this.type,
      userId,
      this.rolesClaims.flatMap((claim) => rolesAt(payload, claim)),
      { claims: Object.freeze(payload), token },
    );
    const ttl = Math.min(CACHE_MAX_MS, (payload.exp ?? 0) * 1000 - Date.now());
    if (ttl > 0) this.verified.set(token, identity, { ttl });
    return identity;
  }
}

const invalid = (description: string) =>
  new BearerAuthError(`Unauthorized: the access token is not valid (${description})`, { error: 'invalid_token', description });

/** A verification failure as the client is told it; the identity provider being unreachable is not the token's fault. */
function refusal(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  if (err instanceof jose.JWTExpired) return invalid('expired');
  if (err instanceof jose.JWTClaimValidationFailed) {
    const claim = err.claim;
    if (claim === 'nbf') return invalid('not yet valid');
    if (claim === 'iss') return invalid('wrong issuer');
    if (claim === 'aud') return invalid('wrong audience');
    return invalid(err.reason === 'missing' ? `no ${claim} claim` : `invalid ${claim} claim`);
  }
  if (err instanceof jose.JWSSignatureVerificationFailed) return invalid('bad signature');
  if (err instanceof jose.JOSEAlgNotAllowed) return invalid('algorithm not allowed');
  if (err instanceof jose.JWKSNoMatchingKey) return invalid('unknown signing key');
  if (err instanceof jose.JWKSMultipleMatchingKeys) return invalid('ambiguous signing key');
  if (err instanceof jose.JOSEError) return invalid('malformed token');
  throw err;
}

/** `scope` (RFC 9068: space-separated) or `scp` (a list, or a string, as some providers send). */
function scopesOf(payload: JWTPayload): Set<string> {
  return new Set([payload.scope, payload.scp].flatMap(words));
}

/**
 * The roles of a claim: the claim of that exact name (namespaced claims such
 * as `https://example.com/roles` hold dots), else the dotted path into
 * nested claims. A list of strings, or one space-separated string; anything
 * else is no roles.
 */
function rolesAt(payload: JWTPayload, path: string): string[] {
  if (Object.hasOwn(payload, path)) return words(payload[path]);
  let value: unknown = payload;
  for (const key of path.split('.')) value = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
  return words(value);
}

function words(value: unknown): string[] {
  if (typeof value === 'string') return value.split(/\s+/).filter(Boolean);
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string' && v.length > 0);
  return [];
}
