/**
 * The one place where errors become wire errors: an HTTP status and the
 * management error body `{error, message, details}`, a JSON-RPC error for
 * MCP clients, or an HTTP-level JSON-RPC error body on the MCP endpoints.
 * Fastify's own request errors (body parsing, media type, size, validation)
 * are first turned into typed errors here, so both surfaces see one kind.
 */
import type { FastifyError } from 'fastify';
import { ProtocolError } from '@modelcontextprotocol/server';
import { BackendCallError, BearerAuthError, GatewayError, ProtocolRefusedError, type ErrorCode } from '../schemas/errors.js';
import { RpcCode } from '../schemas/json-rpc-codes.js';
import type { ErrorBody } from '../schemas/api.js';
import type { UnanswerableReason } from '../runtime/transports/json-rpc.js';

const HTTP_STATUS: Record<ErrorCode, number> = {
  unauthorized: 401,
  forbidden: 403,
  insufficient_scope: 403,
  insufficient_role: 403,
  bad_request: 400,
  invalid_message: 400,
  not_found: 404,
  method_not_allowed: 405,
  config_invalid: 400,
  backend_not_found: 404,
  tool_not_found: 404,
  resource_not_found: 404,
  prompt_not_found: 404,
  tool_quarantined: 403,
  prompt_quarantined: 403,
  not_pending: 404,
  pending_definition_changed: 409,
  skill_not_found: 404,
  registry_not_found: 404,
  registry_entry_not_found: 404,
  registry_entry_not_installable: 422,
  backend_exists: 409,
  hot_reload_disabled: 409,
  backend_unavailable: 503,
  skills_unavailable: 503,
  service_unavailable: 503,
  session_store_unavailable: 503,
  too_many_sessions: 503,
  unsupported_media_type: 415,
  not_acceptable: 406,
  stream_conflict: 409,
  payload_too_large: 413,
  backend_error: 502,
  backend_timeout: 502,
  listen_failed: 500,
  pins_unreadable: 500,
  // nginx's "client closed request": nobody reads it, but the audit and logs can tell it from a failure.
  request_cancelled: 499,
  registry_unavailable: 502,
  rate_limited: 429,
  circuit_open: 503,
  plugin_blocked: 422,
  plugin_failed: 500,
  // On the MCP endpoints its JSON-RPC code says which (mcpHttpError): 400, or 404 for an unknown method.
  protocol_refused: 400,
  // The caller's identity provider would not give a token for this backend: this caller may not, others still may.
  token_exchange_refused: 403,
  // This user has not signed in to a backend that acts for each user: only that user can, at the URL the details carry.
  user_authorization_required: 403,
  internal_error: 500,
};

/** The JSON-RPC code of an error that is answered at the HTTP level on /mcp, /sse and /messages. */
const HTTP_RPC_CODE: Partial<Record<ErrorCode, number>> = {
  invalid_message: RpcCode.InvalidRequest,
  not_found: RpcCode.SessionNotFound,
  internal_error: RpcCode.InternalError,
};

export function httpStatusOf(err: unknown): number {
  return err instanceof GatewayError ? HTTP_STATUS[err.code] : 500;
}

/** Headers an error's answer carries on every surface: a bearer refusal's challenge (401/403, RFC 6750), and when to come back (`retry_after_s`, e.g. 503/429). */
export function errorHeaders(err: GatewayError): Record<string, string> {
  const headers: Record<string, string> = {};
  if (err instanceof BearerAuthError && err.challenge !== undefined) headers['www-authenticate'] = err.challenge;
  const retry = err.details.retry_after_s;
  if (typeof retry === 'number') headers['retry-after'] = String(retry);
  return headers;
}

export function errorBody(err: unknown): ErrorBody {
  if (err instanceof GatewayError) return { error: err.code, message: err.message, details: err.details };
  return { error: 'internal_error', message: 'Internal server error', details: {} };
}

/** Whether an error is an expected outcome (a typed client or availability error), not a fault worth a stack trace. */
export function isExpected(err: unknown): boolean {
  return err instanceof GatewayError && err.code !== 'internal_error';
}

/** A Fastify request error (parsing, media type, size, schema validation) as a typed error; undefined for anything else. */
export function fromFastifyError(err: FastifyError): GatewayError | undefined {
  if (err.validation) {
    const location = err.validationContext ?? '';
    const problems = err.validation.map((v) => {
      const path = `${location}${v.instancePath}`;
      if (v.keyword === 'required') return { path: `${path}/${String(v.params.missingProperty)}`, message: 'is required' };
      if (v.keyword === 'enum') return { path, message: `must be one of: ${(v.params.allowedValues as string[]).join(', ')}` };
      // A regex means nothing to a caller; the schema's description says what is expected.
      if (v.keyword === 'pattern') {
        const description = (v as { parentSchema?: { description?: string } }).parentSchema?.description;
        return { path, message: description ? `is not valid (${description})` : 'is not in the expected format' };
      }
      return { path, message: v.message ?? 'is invalid' };
    });
    const first = problems[0];
    const message = first ? `${first.path} ${first.message}` : err.message;
    return new GatewayError('bad_request', message, { location, problems });
  }
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return invalidJson(err.message, { fastify_code: err.code });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new GatewayError('unsupported_media_type', 'Unsupported Media Type: Content-Type must be application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new GatewayError('payload_too_large', err.message);
  }
  const status = err.statusCode;
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  const code: ErrorCode = status === 404 ? 'not_found' : status === 413 ? 'payload_too_large' : status === 415 ? 'unsupported_media_type' : 'bad_request';
  return new GatewayError(code, err.message, err.code ? { fastify_code: err.code } : {});
}

/** A body that is not JSON: `bad_request` for the management API, -32700 on the MCP endpoints. */
export function invalidJson(why: string, details: Record<string, unknown> = {}): GatewayError {
  return new GatewayError('bad_request', `Parse error: the body is not valid JSON (${why})`, { ...details, reason: 'invalid_json' });
}

/** Any error as a typed one: Fastify's are translated, unknown ones become internal errors. */
export function toGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  const translated = typeof err === 'object' && err !== null ? fromFastifyError(err as FastifyError) : undefined;
  return translated ?? new GatewayError('internal_error', 'Internal server error');
}

/**
 * A JSON-RPC code as the SDK's Server writes it in an answer: an unknown
 * resource (-32002) becomes -32602. The v2 SDK renumbers it in both
 * revisions' encodings, so the gateway's own framings do too.
 */
function sdkEncodedErrorCode(code: number): number {
  return code === RpcCode.ResourceNotFound ? RpcCode.InvalidParams : code;
}

/**
 * The JSON-RPC error the SDK's Server answers for a thrown error: its code
 * (none: -32603) renumbered as above, its message (none: "Internal error")
 * and its data. For the requests the gateway frames itself.
 */
export function sdkErrorBody(err: unknown): { code: number; message: string; data?: unknown } {
  const { code, message, data } = (err ?? {}) as { code?: unknown; message?: string; data?: unknown };
  const encoded = sdkEncodedErrorCode(Number.isSafeInteger(code) ? (code as number) : RpcCode.InternalError);
  return { code: encoded, message: message ?? 'Internal error', ...(data !== undefined && { data }) };
}

/**
 * JSON-RPC errors for MCP clients; backend errors keep the backend's own code
 * and data, and so does any error that already carries a JSON-RPC code (an
 * SDK's protocol error). A 2026-07-28 answer renumbers what that revision
 * renumbered (an unknown resource is -32602) in the SDK's result encoding.
 */
export function toJsonRpcError(err: unknown): ProtocolError {
  if (err instanceof ProtocolError) return err;
  if (err instanceof BackendCallError && err.rpcCode !== undefined) return new ProtocolError(err.rpcCode, err.message, err.rpcData);
  if (err instanceof ProtocolRefusedError) return new ProtocolError(err.rpcCode, err.message, err.rpcData);
  if (err instanceof GatewayError) {
    const data = { error: err.code, ...err.details };
    switch (err.code) {
      case 'tool_not_found':
      case 'prompt_not_found':
      case 'tool_quarantined':
      case 'prompt_quarantined':
      case 'bad_request':
        return new ProtocolError(RpcCode.InvalidParams, err.message, data);
      case 'invalid_message':
        return new ProtocolError(RpcCode.InvalidRequest, err.message, data);
      case 'resource_not_found':
        return new ProtocolError(RpcCode.ResourceNotFound, err.message, data);
      case 'backend_timeout':
        return new ProtocolError(RpcCode.RequestTimeout, err.message, data);
      default:
        return new ProtocolError(RpcCode.InternalError, err.message, data);
    }
  }
  if (err instanceof Error && Number.isSafeInteger((err as { code?: unknown }).code)) {
    const coded = err as Error & { code: number; data?: unknown };
    return new ProtocolError(coded.code, coded.message, coded.data);
  }
  return new ProtocolError(RpcCode.InternalError, err instanceof Error ? err.message : String(err));
}

export interface JsonRpcErrorBody {
  jsonrpc: '2.0';
  error: { code: number; message: string; data?: unknown };
  id: string | number | null;
}

/**
 * The body of an HTTP-level JSON-RPC error on the MCP endpoints (bad body,
 * no session, unknown session, wrong method): there is no request id the
 * error could name, unless the protocol refused a request it could read.
 */
function jsonRpcErrorBody(code: number, message: string, data?: unknown, id: string | number | null = null): JsonRpcErrorBody {
  return { jsonrpc: '2.0', error: data === undefined ? { code, message } : { code, message, data }, id };
}

const UNANSWERABLE_CODE: Record<UnanswerableReason['problem'], number> = {
  unknown_member: RpcCode.InvalidRequest,
  invalid_meta: RpcCode.InvalidParams,
};

/**
 * A request the transport refuses before any handler sees it (a `_meta` that
 * is no object, an unknown member: what the SDK would drop unanswered,
 * runtime/transports/json-rpc.ts): -32600 for an unknown member, -32602 for
 * a bad `_meta`; answered as that request's error (200: an answer) where the
 * answer can ride on the same response (`inBand`: one request with an id on
 * a session's POST), else at the HTTP level (400: a batch, or `/messages`,
 * whose answers travel on the stream).
 */
export function unanswerableRefusal(reason: UnanswerableReason, id: string | number | null, inBand: boolean): ProtocolRefusedError {
  return new ProtocolRefusedError(UNANSWERABLE_CODE[reason.problem], reason.message, undefined, id, inBand && id !== null ? 200 : undefined);
}

/** An error answered at the HTTP level on an MCP endpoint: its status and JSON-RPC body. */
export function mcpHttpError(err: unknown): { status: number; body: JsonRpcErrorBody } {
  const typed = toGatewayError(err);
  if (typed instanceof ProtocolRefusedError) {
    const status = typed.httpStatus ?? REFUSAL_STATUS[typed.rpcCode] ?? 400;
    return { status, body: jsonRpcErrorBody(typed.rpcCode, typed.message, typed.rpcData, typed.requestId) };
  }
  const code = typed.details.reason === 'invalid_json' ? RpcCode.ParseError : (HTTP_RPC_CODE[typed.code] ?? RpcCode.ServerError);
  return { status: HTTP_STATUS[typed.code], body: jsonRpcErrorBody(code, typed.message) };
}

/**
 * The HTTP status of a JSON-RPC error answering a 2026-07-28 request
 * (streamable HTTP of that revision): a refusal of the request itself, made
 * before any handler ran (`refusal`), has its status (404 for an unknown
 * method, 400 for the other refusals the table names; anything else is an
 * answer), an error a handler answered rides on 200,
 * except a missing client capability, which is 400 wherever it comes from.
 */
export function statelessErrorStatus(code: number, refusal: boolean): number {
  if (code === RpcCode.MissingRequiredClientCapability) return 400;
  if (!refusal) return 200;
  return REFUSAL_STATUS[code] ?? 200;
}

/** The status a refusal of the request itself has, by its JSON-RPC code (the transport's table; the SDK's agrees). */
const REFUSAL_STATUS: Record<number, number> = {
  [RpcCode.ParseError]: 400,
  [RpcCode.InvalidRequest]: 400,
  [RpcCode.MethodNotFound]: 404,
  // Before any handler, the SDK's Server refuses only a malformed 2026-07-28 envelope with this code.
  [RpcCode.InvalidParams]: 400,
  [RpcCode.HeaderMismatch]: 400,
  [RpcCode.UnsupportedProtocolVersion]: 400,
};
