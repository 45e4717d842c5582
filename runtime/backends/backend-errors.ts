/**
 * Translates what the SDK client throws for a forwarded request into the
 * gateway's typed errors, keeping the backend's JSON-RPC code and data so they
 * can be passed on to the MCP client unchanged.
 */
import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { BackendCallError, BackendTimeoutError, BackendUnavailableError, GatewayError, RequestCancelledError } from '../../schemas/errors.js';

/** Socket errors that mean the backend cannot be reached at all (503), not that the call failed (502). */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', 'UND_ERR_SOCKET']);

export function toBackendError(backend: string, err: unknown, timeoutMs: number, signal?: AbortSignal): GatewayError {
  if (err instanceof GatewayError) return err;
  // Cancelled by the caller (the client went away or cancelled): the SDK client has told the backend.
  if (signal?.aborted) return new RequestCancelledError(abortReasonText(signal.reason));
  if (err instanceof ProtocolError) {
    // The backend's own JSON-RPC error, passed on as it sent it: its message, code and data.
    return new BackendCallError(backend, err.message, { code: err.code, data: err.data }, err);
  }
  if (err instanceof SdkError) {
    if (err.code === SdkErrorCode.RequestTimeout && /timed out/i.test(err.message)) return new BackendTimeoutError(backend, timeoutMs);
    if (err.code === SdkErrorCode.ConnectionClosed) return new BackendUnavailableError(backend, 'connection closed');
    if (err.code === SdkErrorCode.NotConnected) return new BackendUnavailableError(backend, 'not connected');
  }
  const message = err instanceof Error ? err.message : String(err);
  if (/not connected/i.test(message)) return new BackendUnavailableError(backend, 'not connected');
  const cause = (err as { cause?: { code?: string } } | undefined)?.cause;
  if (cause?.code && UNREACHABLE.has(cause.code)) return new BackendUnavailableError(backend, `${message} (${cause.code})`);
  return new BackendCallError(backend, message, undefined, err);
}

/** An abort reason as text: the string given to abort(), else a generic one (the SDK aborts without a reason). */
export function abortReasonText(reason: unknown): string {
  if (typeof reason === 'string') return reason;
  if (reason instanceof Error && reason.name !== 'AbortError') return reason.message;
  return 'cancelled by the client or its session closed';
}

/** The most of an HTTP answer's body a connect failure quotes: enough for a server's own words, not a page. */
const BODY_QUOTE_MAX = 1000;

/**
 * Why a connect failed, in words an operator can act on: the SDK's message,
 * and when an HTTP server answered with an error, what it said (the SDK keeps
 * the body apart). Events and logs carry it redacted like every text.
 */
export function connectFailureMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (!(err instanceof SdkHttpError)) return message;
  const body = typeof err.data.text === 'string' ? err.data.text.trim() : '';
  if (body === '' || message.includes(body)) return message;
  return `${message}: ${body.length > BODY_QUOTE_MAX ? `${body.slice(0, BODY_QUOTE_MAX)}…` : body}`;
}

/** Whether the backend answered a request with HTTP 401: the token it carried is refused. */
export function isUnauthorizedAnswer(err: unknown): boolean {
  return err instanceof SdkHttpError && err.data.status === 401;
}
