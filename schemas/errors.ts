/**
 * Typed errors shared by every layer. Each carries a stable `code` (the
 * `error` field of a management API error body) and structured `details`.
 * How a code maps to an HTTP status or a JSON-RPC error is decided in one
 * place: api/error-mapping.ts.
 */
import type { DefinitionKind, HoldReason } from './pinning.js';
import { RpcCode } from './json-rpc-codes.js';

export type ErrorCode =
  | 'unauthorized'
  | 'forbidden'
  | 'insufficient_scope'
  | 'insufficient_role'
  | 'bad_request'
  | 'invalid_message'
  | 'not_found'
  | 'method_not_allowed'
  | 'config_invalid'
  | 'backend_not_found'
  | 'tool_not_found'
  | 'resource_not_found'
  | 'prompt_not_found'
  | 'tool_quarantined'
  | 'prompt_quarantined'
  | 'not_pending'
  | 'pending_definition_changed'
  | 'pins_unreadable'
  | 'backend_unavailable'
  | 'backend_error'
  | 'backend_timeout'
  | 'hot_reload_disabled'
  | 'backend_exists'
  | 'too_many_sessions'
  | 'listen_failed'
  | 'request_cancelled'
  | 'skill_not_found'
  | 'skills_unavailable'
  | 'registry_not_found'
  | 'registry_unavailable'
  | 'registry_entry_not_found'
  | 'registry_entry_not_installable'
  | 'service_unavailable'
  | 'session_store_unavailable'
  | 'unsupported_media_type'
  | 'not_acceptable'
  | 'stream_conflict'
  | 'payload_too_large'
  | 'rate_limited'
  | 'circuit_open'
  | 'plugin_blocked'
  | 'plugin_failed'
  | 'protocol_refused'
  | 'token_exchange_refused'
  | 'user_authorization_required'
  | 'internal_error';

export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.details = details;
    // Subclass names end up in audit records (`outcome.error_type`).
    this.name = new.target.name;
  }
}

/** What RFC 6750 (section 3) lets a bearer challenge say about a refusal. */
export interface BearerRefusal {
  /** Absent when the request carried no bearer credentials at all. */
  error?: 'invalid_token' | 'insufficient_scope';
  /** Why, in a few words that never quote the credentials (`expired`, `wrong audience`). */
  description?: string;
  /** The scopes the resource needs (`insufficient_scope`). */
  scope?: string;
}

/**
 * Bearer credentials missing or refused (401 `unauthorized`), or a token
 * without a scope the resource needs (403 `insufficient_scope`). The answer
 * carries a `WWW-Authenticate` challenge: the surface that refuses knows
 * what it says (the management realm; on /mcp and /sse, where the protected
 * resource metadata is) and adds it with withChallenge(); api/error-mapping.ts
 * turns it into the header.
 */
export class BearerAuthError extends GatewayError {
  readonly refusal: BearerRefusal;
  /** The `WWW-Authenticate` value, once the refusing surface has set it. */
  readonly challenge?: string;

  constructor(message: string, refusal: BearerRefusal, challenge?: string) {
    const reason = refusal.error === undefined ? 'missing' : refusal.error === 'insufficient_scope' ? 'insufficient_scope' : 'invalid';
    super(refusal.error === 'insufficient_scope' ? 'insufficient_scope' : 'unauthorized', message, {
      reason,
      ...(refusal.description ? { description: refusal.description } : {}),
      ...(refusal.scope ? { scope: refusal.scope } : {}),
    });
    this.refusal = refusal;
    this.challenge = challenge;
  }

  withChallenge(challenge: string): BearerAuthError {
    return new BearerAuthError(this.message, this.refusal, challenge);
  }
}

/**
 * An authenticated person whose management role does not allow what they asked
 * (docs/management-api.md#roles): 403, never 401, since signing in again would
 * not help.
 */
export class InsufficientRoleError extends GatewayError {
  constructor(required: string, role: string | null, what: string) {
    super(
      'insufficient_role',
      role === null
        ? `Forbidden: this identity has no management role (${what} needs ${required})`
        : `Forbidden: ${what} needs the role ${required}; you are ${role}`,
      { required, role },
    );
  }
}

export class ConfigError extends GatewayError {
  /** One entry per problem, each naming the key path (and line, when known). */
  readonly problems: ConfigProblem[];
  constructor(message: string, problems: ConfigProblem[]) {
    super('config_invalid', message, { problems });
    this.problems = problems;
  }
}

export interface ConfigProblem {
  path: string;
  message: string;
  line?: number;
  column?: number;
}

export class BackendNotFoundError extends GatewayError {
  constructor(name: string) {
    super('backend_not_found', `Unknown backend: ${name}`, { backend: name });
  }
}

export class ToolNotFoundError extends GatewayError {
  /** `suggestions`: names the caller may have meant (call_tool offers the closest ones). */
  constructor(name: string, suggestions: readonly string[] = []) {
    const hint = suggestions.length > 0 ? `; did you mean ${suggestions.map((s) => `'${s}'`).join(', ')}?` : '';
    super('tool_not_found', `Unknown tool: ${name}${hint}`, suggestions.length > 0 ? { tool: name, suggestions: [...suggestions] } : { tool: name });
  }
}

export class ResourceNotFoundError extends GatewayError {
  constructor(uri: string) {
    super('resource_not_found', `Unknown resource: ${uri}`, { uri });
  }
}

export class PromptNotFoundError extends GatewayError {
  constructor(name: string) {
    super('prompt_not_found', `Unknown prompt: ${name}`, { prompt: name });
  }
}

/** Why a definition waits, as a call to it is told (docs/tool-pinning.md). */
const HOLD_EXPLANATIONS: Record<HoldReason, string> = {
  changed: 'its definition changed since it was pinned',
  new: "it appeared after the backend's definitions were pinned and waits for approval",
  suspicious: 'its definition holds suspicious text (invisible characters or hidden instructions)',
};

/** A tool or prompt held back until an operator approves its definition: a call says why and how to approve it. */
export class QuarantinedError extends GatewayError {
  constructor(kind: DefinitionKind, name: string, backend: string, reason: HoldReason) {
    const command = `gateway-client ${kind}s`;
    super(
      kind === 'tool' ? 'tool_quarantined' : 'prompt_quarantined',
      `${kind === 'tool' ? 'Tool' : 'Prompt'} '${name}' is quarantined: ${HOLD_EXPLANATIONS[reason]}. ` +
        `An operator can review it with "${command} diff ${name}" and approve it with "${command} approve ${name}".`,
      { [kind]: name, backend, reason, approve_command: `${command} approve ${name}` },
    );
  }
}

/** POST /tools/{name}/approve of a name that does not wait for approval. */
export class NotPendingError extends GatewayError {
  constructor(kind: DefinitionKind, name: string) {
    super('not_pending', `${kind === 'tool' ? 'Tool' : 'Prompt'} '${name}' is not waiting for approval`, { [kind]: name });
  }
}

/** An approval named the hash the operator reviewed, and another definition waits now. */
export class PendingDefinitionChangedError extends GatewayError {
  constructor(kind: DefinitionKind, name: string, expected: string, current: string) {
    super('pending_definition_changed', `The definition of ${kind} '${name}' waiting for approval is now ${current}, not ${expected}: review it again`, {
      [kind]: name,
      expected_hash: expected,
      current_hash: current,
    });
  }
}

/** The pins file holds something that is not pins: the gateway does not start on pins it cannot trust. */
export class PinsUnreadableError extends GatewayError {
  constructor(location: string, problem: string, cause?: unknown) {
    super('pins_unreadable', `${location} ${problem}; restore it, or remove it to pin every definition afresh`, { location }, { cause });
  }
}

/** The owning backend exists but has no usable session right now. */
export class BackendUnavailableError extends GatewayError {
  constructor(backend: string, reason: string) {
    super('backend_unavailable', `Backend '${backend}' is unavailable: ${reason}`, { backend, reason });
  }
}

/** The backend answered the forwarded request with an error, or the transport broke mid-call. */
export class BackendCallError extends GatewayError {
  readonly rpcCode?: number;
  readonly rpcData?: unknown;
  constructor(backend: string, message: string, rpc?: { code?: number; data?: unknown }, cause?: unknown) {
    super('backend_error', message, { backend, ...(rpc?.code !== undefined ? { rpc_code: rpc.code } : {}) }, { cause });
    this.rpcCode = rpc?.code;
    this.rpcData = rpc?.data;
  }
}

/** A name known from a backend that is not serving now (reconnecting, failed): distinct from an unknown name. */
export class BackendNotReadyError extends GatewayError {
  constructor(capability: string, backend: string, phase: string) {
    super('backend_unavailable', `'${capability}' is not available now: backend "${backend}" is ${phase}`, { backend, phase, capability });
  }
}

/** A name no backend serves while some backend is still in its first connect attempt: it may yet be served. */
export class BackendsStartingError extends GatewayError {
  constructor(capability: string, connecting: number, retryAfterS: number) {
    super(
      'backend_unavailable',
      `'${capability}' is not available yet: ${connecting} backend${connecting === 1 ? ' is' : 's are'} still connecting for the first time; retry in ${retryAfterS} s`,
      { capability, backends_connecting: connecting, retry_after_s: retryAfterS },
    );
  }
}

export class BackendTimeoutError extends GatewayError {
  constructor(backend: string, timeoutMs: number) {
    super('backend_timeout', `Backend '${backend}' did not answer within ${timeoutMs} ms`, { backend, timeout_ms: timeoutMs });
  }
}

export class BadRequestError extends GatewayError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('bad_request', message, details);
  }
}

/**
 * A task id the gateway cannot route for this caller: made up, tampered,
 * expired, or another identity's. One answer for all (-32602, as the spec's
 * unknown task), so an id reveals nothing about tasks that are not the caller's.
 */
export class TaskNotFoundError extends GatewayError {
  constructor() {
    super('bad_request', 'Task not found', { reason: 'unknown_task' });
  }
}

/** A new client session would exceed `server.max_sessions`. */
export class TooManySessionsError extends GatewayError {
  constructor(limit: number, retryAfterS: number) {
    super('too_many_sessions', `Too many sessions: the gateway serves at most ${limit} at once; retry in ${retryAfterS} s`, {
      max_sessions: limit,
      retry_after_s: retryAfterS,
    });
  }
}

/** The client went away (closed its stream, deleted its session) while its request was forwarded. */
export class RequestCancelledError extends GatewayError {
  constructor(reason: string) {
    super('request_cancelled', `cancelled: ${reason}`, { reason });
  }
}

export class SkillNotFoundError extends GatewayError {
  constructor(name: string) {
    super('skill_not_found', `Unknown skill: ${name}`, { skill: name });
  }
}

/** The shared session store (Redis) cannot be reached: the client should come back, not start over. */
export class SessionStoreUnavailableError extends GatewayError {
  constructor(retryAfterS: number) {
    super('session_store_unavailable', `Session store unavailable: the session store (Redis) cannot be reached; retry in ${retryAfterS} s`, {
      retry_after_s: retryAfterS,
    });
  }
}

/** The rate_limiter plugin refused a call: too many in the current window for its key. */
export class RateLimitedError extends GatewayError {
  constructor(plugin: string, per: string, retryAfterS: number) {
    super('rate_limited', `Rate limit exceeded (per ${per}); retry in ${retryAfterS} s`, { plugin, per, retry_after_s: retryAfterS });
  }
}

/** The circuit_breaker plugin refused a call: the backend failed too often and its circuit is open. */
export class CircuitOpenError extends GatewayError {
  constructor(backend: string, retryAt: Date, retryAfterS: number) {
    super('circuit_open', `Backend '${backend}' is failing: its circuit is open; it is tried again at ${retryAt.toISOString()} (in ${retryAfterS} s)`, {
      backend,
      retry_at: retryAt.toISOString(),
      retry_after_s: retryAfterS,
    });
  }
}

/** The replica is draining (SIGTERM): it finishes what it runs and takes no new session or stream. */
export class DrainingError extends GatewayError {
  constructor(retryAfterS: number) {
    super('service_unavailable', `Service unavailable: this gateway replica is shutting down; retry in ${retryAfterS} s (another replica will answer)`, {
      state: 'draining',
      retry_after_s: retryAfterS,
    });
  }
}

/**
 * A plugin stopped the call on purpose (a secret or personal data found, an
 * output too long, a plugin of your own that called `ctx.block`). The
 * message names the plugin and the kinds found, never a value.
 */
export class PluginBlockedError extends GatewayError {
  constructor(plugin: string, reason: string, details: Record<string, unknown> = {}) {
    super('plugin_blocked', `Blocked by plugin ${plugin}: ${reason}`, { plugin, ...details });
  }
}

/** A plugin in execution mode `enforce` failed (threw, timed out, did not load): the call fails with it. */
export class PluginFailedError extends GatewayError {
  constructor(plugin: string, reason: string) {
    super('plugin_failed', `Plugin ${plugin} failed: ${reason}`, { plugin, reason });
  }
}

/**
 * A request a JSON-RPC peer sent the gateway (a backend's sampling or roots
 * request, say), refused with this JSON-RPC code: the SDKs answer a thrown
 * error with its numeric `code`, `message` and `data` as they are.
 */
export class RpcRefusal extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'RpcRefusal';
  }
}

/**
 * A request the protocol's own checks refuse before anything handles it
 * (2026-07-28 and the revision routing: a header that disagrees with the
 * body, an unsupported revision, a malformed `_meta` envelope, an unknown
 * method). It keeps the JSON-RPC code and data the revision gives it, and the
 * id of the request it refuses; api/error-mapping.ts gives it its status.
 */
export class ProtocolRefusedError extends GatewayError {
  readonly rpcCode: number;
  readonly rpcData?: unknown;
  readonly requestId: string | number | null;
  /**
   * The HTTP status the SDK's own classification of the request named (its
   * refusal table); absent, api/error-mapping.ts gives the one the revision
   * names for the code (400, or 404 for an unknown method).
   */
  readonly httpStatus?: number;
  constructor(rpcCode: number, message: string, rpcData: unknown, requestId: string | number | null, httpStatus?: number) {
    super('protocol_refused', message, { rpc_code: rpcCode });
    this.httpStatus = httpStatus;
    this.rpcCode = rpcCode;
    this.rpcData = rpcData;
    this.requestId = requestId;
  }
}

/**
 * The errors of the MCP endpoints themselves (the transports and their
 * routes), before any method runs: each answered at the HTTP level with the
 * status and JSON-RPC code api/error-mapping.ts gives its code.
 */

/** No such session here (404, -32001): closed, expired, or never made; the client starts a new one. */
export class SessionNotFoundError extends GatewayError {
  constructor(message = 'Session not found') {
    super('not_found', message);
  }
}

/** A message the endpoint cannot take as it is: not JSON-RPC, a bad batch, a second initialize, an id in flight (400, -32600). */
export class InvalidMessageError extends GatewayError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('invalid_message', message, details);
  }
}

/** The client does not take what the answer would be (406). */
export class NotAcceptableError extends GatewayError {
  constructor(message: string) {
    super('not_acceptable', message);
  }
}

/** A second stream where the session may have one (409). */
export class StreamConflictError extends GatewayError {
  constructor(message: string) {
    super('stream_conflict', message);
  }
}

/** A request whose id is already in flight in its session (or twice in one batch): -32600 naming it, 400; the one in flight is untouched. */
export class RequestIdInFlightError extends ProtocolRefusedError {
  constructor(ids: ReadonlyArray<string | number>, batch: boolean) {
    const message = `Invalid Request: request id ${ids.map((id) => JSON.stringify(id)).join(', ')} is already in flight in this session`;
    super(RpcCode.InvalidRequest, message, undefined, batch ? null : (ids[0] ?? null));
  }
}

/**
 * A call needs its client to answer a request (elicitation, sampling,
 * roots) that the client did not declare it can answer: -32021, with the
 * capability it needs in `data.requiredCapabilities` (2026-07-28's error,
 * given to clients of either revision).
 */
export class MissingClientCapabilityError extends ProtocolRefusedError {
  constructor(capability: string, method: string, requiredCapabilities: Record<string, unknown>, requestId: string | number | null = null) {
    super(
      RpcCode.MissingRequiredClientCapability,
      `The call needs the client capability '${capability}' to answer ${method}, which the client did not declare`,
      { requiredCapabilities },
      requestId,
      200,
    );
  }
}

/** A backend asked a client for more input than `server.input_rounds` allows (rounds or size): the call fails, the backend's call is cancelled. */
export class InputLimitError extends GatewayError {
  constructor(backend: string | undefined, reason: 'too_many_rounds' | 'input_too_large', message: string) {
    super('backend_error', message, { ...(backend ? { backend } : {}), reason });
  }
}
