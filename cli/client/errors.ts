/**
 * What can go wrong talking to a gateway, as seen by a client: the server
 * answered with an error body, it wanted credentials (401), or nothing
 * answered at all. Commands map these to exit codes 1, 4 and 3
 * (cli/output/exit-codes.ts).
 */
import type { ErrorBody } from '../../schemas/api.js';

/** A non-2xx answer; `body` is the API's `{error, message, details}` (synthesised when the body was not one). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    readonly url: string,
  ) {
    super(`${body.error}: ${body.message}`);
    this.name = 'ApiError';
  }
}

/** Which credentials a 401 was about: the management token, or an MCP client's token on `/mcp`. */
export type CredentialKind = 'management' | 'mcp';

/** A 401: the credentials were missing or refused. Still an ApiError, so code that only reports one keeps working. */
export class AuthenticationError extends ApiError {
  constructor(
    status: number,
    body: ErrorBody,
    url: string,
    readonly credential: CredentialKind,
  ) {
    super(status, body, url);
    this.name = 'AuthenticationError';
  }
}

/** The error for a non-2xx answer: a 401 is an authentication problem, anything else the server's error. */
export function httpError(status: number, body: ErrorBody, url: string, credential: CredentialKind): ApiError {
  return status === 401 ? new AuthenticationError(status, body, url, credential) : new ApiError(status, body, url);
}

/** No HTTP answer: connection refused, DNS failure, timeout, reset. */
export class UnreachableError extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`Cannot reach the gateway at ${url} (${reason})`);
    this.name = 'UnreachableError';
  }
}

/** The most telling part of a fetch failure: `ECONNREFUSED`, `ENOTFOUND`, `timeout`… */
export function networkReason(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return 'timed out';
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
}

/** The API's error body from an answer's text, or one made from the status when a proxy or another server answered. */
export function errorBodyOf(status: number, statusText: string, text: string): ErrorBody {
  let b: Partial<ErrorBody> | undefined;
  try {
    b = JSON.parse(text) as Partial<ErrorBody>;
  } catch {
    b = undefined;
  }
  if (b && typeof b.error === 'string' && typeof b.message === 'string') return { error: b.error, message: b.message, details: b.details ?? {} };
  return { error: `http_${status}`, message: text.trim().slice(0, 200) || statusText, details: {} };
}
