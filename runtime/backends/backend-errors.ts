/**
 * Translates what the SDK client throws for a forwarded request into the
 * gateway's typed errors, keeping the backend's JSON-RPC code and data so they
 * can be passed on to the MCP client unchanged.
 */
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { BackendCallError, BackendTimeoutError, BackendUnavailableError, GatewayError } from '../../schemas/errors.js';

/** Socket errors that mean the backend cannot be reached at all (503), not that the call failed (502). */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', 'UND_ERR_SOCKET']);

export function toBackendError(backend: string, err: unknown, timeoutMs: number): GatewayError {
  if (err instanceof GatewayError) return err;
  if (err instanceof McpError) {
    if (err.code === ErrorCode.RequestTimeout && /timed out/i.test(err.message)) return new BackendTimeoutError(backend, timeoutMs);
    if (err.code === ErrorCode.ConnectionClosed) return new BackendUnavailableError(backend, 'connection closed');
    // McpError prefixes "MCP error <code>: "; the client sees the code separately.
    const message = err.message.replace(/^MCP error -?\d+: /, '');
    return new BackendCallError(backend, message, { code: err.code, data: err.data }, err);
  }
  const message = err instanceof Error ? err.message : String(err);
  if (/not connected/i.test(message)) return new BackendUnavailableError(backend, 'not connected');
  const cause = (err as { cause?: { code?: string } } | undefined)?.cause;
  if (cause?.code && UNREACHABLE.has(cause.code)) return new BackendUnavailableError(backend, `${message} (${cause.code})`);
  return new BackendCallError(backend, message, undefined, err);
}
