/**
 * Which failed calls mean the backend is in trouble. A transport failure
 * (the call timed out, the connection is gone or broke mid-call) may pass
 * on a retry; a server-side JSON-RPC error (internal error, -32000..-32099)
 * counts against the backend's circuit as well. An error the backend
 * answered about the request itself (invalid params, unknown method) and a
 * tool's `isError` result are the caller's business and count for neither.
 */
import { BackendCallError, BackendTimeoutError, BackendUnavailableError } from '../../../schemas/errors.js';
import { RpcCode } from '../../../schemas/json-rpc-codes.js';

export function isTransportFailure(err: unknown): boolean {
  return err instanceof BackendTimeoutError || err instanceof BackendUnavailableError || (err instanceof BackendCallError && err.rpcCode === undefined);
}

export function isBackendFailure(err: unknown): boolean {
  if (isTransportFailure(err)) return true;
  const code = err instanceof BackendCallError ? err.rpcCode : undefined;
  return code !== undefined && (code === RpcCode.InternalError || (code <= -32000 && code >= -32099));
}
