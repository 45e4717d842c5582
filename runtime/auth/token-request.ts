/**
 * One request to an OAuth token endpoint (RFC 6749 section 3.2) with the
 * gateway's client credentials (`client_secret_basic`, section 2.3.1, or
 * `client_secret_post`), as a form POST: the answer's tokens, or a typed
 * error. A refusal (an OAuth error body) is a TokenExchangeRefusedError with
 * the server's error code; a server that cannot be reached or answers with
 * something that is not a token is a TokenUnavailableError. Neither message
 * carries a token: only the backend, the endpoint and what the server said.
 */
import { TokenExchangeRefusedError, TokenUnavailableError } from './errors.js';

export interface TokenResponse {
  access_token: string;
  token_type?: string;
  expires_in?: number;
  refresh_token?: string;
  issued_token_type?: string;
  scope?: string;
}

export interface TokenRequestOptions {
  backend: string;
  clientId: string;
  clientSecret: string;
  method: 'client_secret_basic' | 'client_secret_post';
  fetch: typeof fetch;
  timeoutMs: number;
}

/** An issuer's description is shown to people; it is cut short so a server cannot fill a log line with it. */
const MAX_DESCRIPTION = 200;

export async function postTokenRequest(endpoint: string, form: Record<string, string>, opts: TokenRequestOptions): Promise<TokenResponse> {
  const body = new URLSearchParams(form);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  if (opts.method === 'client_secret_basic') {
    // RFC 6749 section 2.3.1: each part form-encoded before the Base64.
    headers.authorization = `Basic ${Buffer.from(`${formEncode(opts.clientId)}:${formEncode(opts.clientSecret)}`).toString('base64')}`;
  } else {
    body.set('client_id', opts.clientId);
    body.set('client_secret', opts.clientSecret);
  }
  let res: Response;
  try {
    res = await opts.fetch(endpoint, { method: 'POST', headers, body, signal: AbortSignal.timeout(opts.timeoutMs) });
  } catch (err) {
    throw new TokenUnavailableError(opts.backend, `the token endpoint ${endpoint} did not answer: ${(err as Error).message}`);
  }
  const json = (await res.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  if (!res.ok) {
    if (typeof json?.error === 'string') throw new TokenExchangeRefusedError(opts.backend, endpoint, json.error, description(json.error_description));
    throw new TokenUnavailableError(opts.backend, `the token endpoint ${endpoint} answered HTTP ${res.status}`);
  }
  if (typeof json?.access_token !== 'string' || json.access_token === '') {
    throw new TokenUnavailableError(opts.backend, `the token endpoint ${endpoint} answered without an access_token`);
  }
  return json as unknown as TokenResponse;
}

const formEncode = (s: string): string => encodeURIComponent(s).replace(/%20/g, '+');

function description(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  return value.length > MAX_DESCRIPTION ? `${value.slice(0, MAX_DESCRIPTION)}…` : value;
}
