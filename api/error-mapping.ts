/**
 * The one place where typed errors become wire errors: an HTTP status and
 * the management error body `{error, message, details}`, or a JSON-RPC error
 * for MCP clients.
 */
import { ErrorCode as RpcCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { BackendCallError, GatewayError, type ErrorCode } from '../schemas/errors.js';
import type { ErrorBody } from '../schemas/api.js';

const HTTP_STATUS: Record<ErrorCode, number> = {
  unauthorized: 401,
  bad_request: 400,
  not_found: 404,
  config_invalid: 400,
  backend_not_found: 404,
  tool_not_found: 404,
  resource_not_found: 404,
  prompt_not_found: 404,
  skill_not_found: 404,
  registry_not_found: 404,
  registry_entry_not_found: 404,
  registry_entry_not_installable: 422,
  backend_exists: 409,
  hot_reload_disabled: 409,
  backend_unavailable: 503,
  skills_unavailable: 503,
  service_unavailable: 503,
  unsupported_media_type: 415,
  payload_too_large: 413,
  backend_error: 502,
  backend_timeout: 502,
  registry_unavailable: 502,
  internal_error: 500,
};

export function httpStatusOf(err: unknown): number {
  return err instanceof GatewayError ? HTTP_STATUS[err.code] : 500;
}

export function errorBody(err: unknown): ErrorBody {
  if (err instanceof GatewayError) return { error: err.code, message: err.message, details: err.details };
  return { error: 'internal_error', message: 'Internal server error', details: {} };
}

/** JSON-RPC error codes for MCP clients; backend errors keep the backend's own code and data. */
export function toJsonRpcError(err: unknown): McpError {
  if (err instanceof McpError) return err;
  if (err instanceof BackendCallError && err.rpcCode !== undefined) return new McpError(err.rpcCode, err.message, err.rpcData);
  if (err instanceof GatewayError) {
    switch (err.code) {
      case 'tool_not_found':
      case 'prompt_not_found':
      case 'bad_request':
        return new McpError(RpcCode.InvalidParams, err.message, { error: err.code, ...err.details });
      case 'resource_not_found':
        // -32002 is the MCP convention for an unknown resource.
        return new McpError(-32002, err.message, { error: err.code, ...err.details });
      case 'backend_timeout':
        return new McpError(RpcCode.RequestTimeout, err.message, { error: err.code, ...err.details });
      default:
        return new McpError(RpcCode.InternalError, err.message, { error: err.code, ...err.details });
    }
  }
  return new McpError(RpcCode.InternalError, err instanceof Error ? err.message : String(err));
}

/**
 * The body of an HTTP-level JSON-RPC error on the MCP endpoints (no session,
 * unknown session, wrong method): the request had no id the error could name.
 */
export function jsonRpcErrorBody(code: number, message: string): { jsonrpc: '2.0'; error: { code: number; message: string }; id: null } {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}
