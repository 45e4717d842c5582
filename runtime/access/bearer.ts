/**
 * The bearer token of an `Authorization` header (RFC 6750 section 2.1):
 * `Bearer`, in any case, then spaces, then a b64token. One regular
 * expression without ambiguity (each part's characters exclude the next
 * part's), so it runs in linear time on any header a client may send, and a
 * good header costs one match.
 */
import { BearerAuthError } from '../../schemas/errors.js';

/** b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=" */
const BEARER = /^[ \t]*[Bb][Ee][Aa][Rr][Ee][Rr][ \t]+([A-Za-z0-9\-._~+/]+=*)[ \t]*$/;
const BEARER_SCHEME = /^[ \t]*bearer(?:[ \t]|$)/i;

/** The token; throws BearerAuthError when there is none (401, no error code) or it is not a b64token (`invalid_token`). */
export function bearerToken(authorization: string | undefined): string {
  const token = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
  if (token !== undefined) return token;
  if (authorization === undefined || !BEARER_SCHEME.test(authorization) || authorization.trim().length === 6) {
    throw new BearerAuthError('Unauthorized: a bearer token is required', {});
  }
  throw new BearerAuthError('Unauthorized: the bearer token is malformed', { error: 'invalid_token', description: 'malformed token' });
}
