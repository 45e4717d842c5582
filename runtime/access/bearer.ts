/**
 * The bearer token of an `Authorization` header (RFC 6750 section 2.1):
 * `Bearer`, in any case, then spaces, then a b64token. Written as a single
 * linear scan with no backtracking, for any header a client may send.
 */
import { BearerAuthError } from '../../schemas/errors.js';

/** b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=" */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** The token; throws BearerAuthError when there is none (401, no error code) or it is not a b64token (`invalid_token`). */
export function bearerToken(authorization: string | undefined): string {
  const header = authorization?.trim() ?? '';
  const space = header.search(/[ \t]/);
  if (space === -1 || header.slice(0, space).toLowerCase() !== 'bearer') {
    throw new BearerAuthError('Unauthorized: a bearer token is required', {});
  }
  const token = header.slice(space + 1).trimStart();
  if (!B64TOKEN.test(token))
    throw new BearerAuthError('Unauthorized: the bearer token is malformed', { error: 'invalid_token', description: 'malformed token' });
  return token;
}
