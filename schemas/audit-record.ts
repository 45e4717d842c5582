/**
 * One line of the audit file (`audit.file`, JSON Lines, UTF-8): a record of a
 * single MCP operation forwarded to a backend.
 *
 * String shapes use `pattern` rather than `format` so the schema validates
 * the same way with TypeBox's `Value.Check` (which knows no formats unless
 * registered) and with ajv.
 */
import { Type, type Static } from '@sinclair/typebox';

/**
 * Spec 2.8's three, plus `complete` (completion/complete goes through the same audit and telemetry) and `task`
 * (tasks/get, tasks/result, tasks/cancel, tasks/update: the capability names which, the original name is the backend's task id).
 */
export const AUDIT_METHODS = ['call_tool', 'read_resource', 'get_prompt', 'complete', 'task'] as const;
/** Beyond spec 2.8: `denied`, an operation the authorization policies refused (docs/incoming-auth.md). */
export const AUDIT_STATUSES = ['success', 'error', 'denied'] as const;

/** UTC ISO 8601 as produced by `Date.prototype.toISOString()`. */
const UTC_TIMESTAMP = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z$';
const UUID_V4 = '^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$';

const NullableString = Type.Union([Type.String(), Type.Null()]);

export const AuditSource = Type.Object(
  {
    session_id: Type.String(),
    client_ip: Type.String(),
    /** Present only when the caller is authenticated as a known user. */
    user_id: Type.Optional(Type.String()),
    /** Beyond spec 2.8: that user's roles, with `user_id`. */
    roles: Type.Optional(Type.Array(Type.String())),
    /** Beyond spec 2.8: the client program as it names itself (initialize's `clientInfo`, or a 2026-07-28 request's envelope). */
    client_name: Type.Optional(Type.String()),
    client_version: Type.Optional(Type.String()),
    /** Beyond spec 2.8: the protocol revision the client spoke. A 2026-07-28 request has no session: `session_id` is ''. */
    protocol_version: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export const AuditTarget = Type.Object(
  {
    backend: Type.String(),
    method: Type.Union(AUDIT_METHODS.map((m) => Type.Literal(m))),
    /** The name the gateway exposes (after prefixing / conflict resolution). */
    capability_name: Type.String(),
    /** The name at the backend. */
    original_name: Type.String(),
    /**
     * Whom the backend call was made as, when not as the gateway: a backend
     * that acts for each caller (`auth.on_behalf_of`) got this user's token,
     * obtained this way. Absent: the gateway's own credential (or none).
     */
    acting_as: Type.Optional(
      Type.Object({ user_id: Type.String(), via: Type.Union([Type.Literal('token_exchange'), Type.Literal('user_oauth')]) }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);

export const AuditOutcome = Type.Object(
  {
    status: Type.Union(AUDIT_STATUSES.map((s) => Type.Literal(s))),
    latency_ms: Type.Number({ minimum: 0 }),
    error: NullableString,
    /** Class name of the thrown error, or `ToolError` when a tool returned `isError: true`. */
    error_type: NullableString,
    /** Status `denied` only: the 0-based index of the policy that refused, or null when `default_effect` did. */
    policy_index: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
  },
  { additionalProperties: false },
);

export const PLUGIN_ACTIONS = ['block', 'redact', 'truncate', 'clean', 'modify', 'cache_hit', 'retry', 'error'] as const;
export type PluginActionKind = (typeof PLUGIN_ACTIONS)[number];

/** What one plugin did to the operation (docs/plugins.md): never a value it found, only kinds and counts. */
export const PluginAction = Type.Object(
  {
    plugin: Type.String(),
    action: Type.Union(PLUGIN_ACTIONS.map((a) => Type.Literal(a))),
    /** Where it acted: the arguments on the way in, the result or a failed call's error on the way out. */
    where: Type.Optional(Type.Union([Type.Literal('arguments'), Type.Literal('result'), Type.Literal('error')])),
    /** What it found, by kind (`aws_access_key`, `email`, …), with how many of each. */
    kinds: Type.Optional(Type.Record(Type.String(), Type.Integer({ minimum: 1 }))),
    /** false: a block that did not stop the call (execution mode `permissive`). */
    enforced: Type.Optional(Type.Boolean()),
    /** The error code of a block (`rate_limited`, …) or why a plugin failed (`timeout`, `threw`, `not_loaded`). */
    reason: Type.Optional(Type.String()),
    /** A retry: its number, the delay before it and the error that caused it. */
    attempt: Type.Optional(Type.Integer({ minimum: 1 })),
    delay_ms: Type.Optional(Type.Number({ minimum: 0 })),
    error_type: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type PluginAction = Static<typeof PluginAction>;

/** Open object: transports may add their own keys (e.g. HTTP request id). */
export const AuditMetadata = Type.Object(
  {
    transport: Type.String(),
    jsonrpc_id: Type.Union([Type.String(), Type.Number(), Type.Null()]),
    /** Present when a plugin blocked, changed, answered from its cache or retried the operation. */
    plugins: Type.Optional(Type.Array(PluginAction)),
    /** Present when the call asked its client for input (elicitation, sampling, roots): one record for all its rounds. */
    input_rounds: Type.Optional(
      Type.Object(
        {
          rounds: Type.Integer({ minimum: 1 }),
          /** The kinds of request asked, in order (never the answers). */
          asked: Type.Array(Type.String()),
          /** The call was run again at its backend to finish it, on a replica that did not hold it (at least once). */
          reissued: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: true },
);

export const AuditRecord = Type.Object(
  {
    timestamp: Type.String({ pattern: UTC_TIMESTAMP }),
    event_type: Type.Literal('mcp_operation'),
    event_id: Type.String({ pattern: UUID_V4 }),
    source: AuditSource,
    target: AuditTarget,
    outcome: AuditOutcome,
    metadata: AuditMetadata,
  },
  { additionalProperties: false, title: 'Audit record' },
);

export type AuditRecord = Static<typeof AuditRecord>;
export type AuditMethod = (typeof AUDIT_METHODS)[number];
export type AuditStatus = (typeof AUDIT_STATUSES)[number];
export type AuditMetadata = Static<typeof AuditMetadata>;
