/**
 * Typed errors shared by every layer. Each carries a stable `code` (the
 * `error` field of a management API error body) and structured `details`.
 * How a code maps to an HTTP status or a JSON-RPC error is decided in one
 * place: api/error-mapping.ts.
 */
export type ErrorCode =
  | 'unauthorized'
  | 'forbidden'
  | 'insufficient_scope'
  | 'bad_request'
  | 'invalid_message'
  | 'not_found'
  | 'method_not_allowed'
  | 'config_invalid'
  | 'backend_not_found'
  | 'tool_not_found'
  | 'resource_not_found'
  | 'prompt_not_found'
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
  | 'unsupported_media_type'
  | 'payload_too_large'
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
  constructor(name: string) {
    super('tool_not_found', `Unknown tool: ${name}`, { tool: name });
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
