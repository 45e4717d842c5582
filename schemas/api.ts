/**
 * Request and response shapes of the management API (spec sections 2 and 4).
 * Routes validate requests and serialise responses from these definitions,
 * and the OpenAPI document is generated from the same objects.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { BackendRecordSchema, EventRecordSchema, SEVERITIES } from './records.js';
import { BACKEND_NAME_PATTERN, OPTIMIZER_MAX_LIMIT } from './config.js';
import { FindingSchema, HOLD_REASONS } from './pinning.js';
import { EXECUTION_MODES } from './plugins.js';
import { POLICY_EFFECTS, RESOURCE_KINDS, RESOURCE_NAME_PATTERN } from './access-config.js';
import { MANAGEMENT_ROLES } from './management-roles.js';
import { AUDIT_STATUSES, AuditRecord } from './audit-record.js';

const Int = (opts: object = {}) => Type.Integer(opts);
/** A plain `enum` (not anyOf of literals), so a wrong value reads "must be equal to one of the allowed values". */
const StringEnum = <T extends readonly string[]>(values: T, opts: object = {}) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...opts });
const FreeObject = (description?: string) => Type.Record(Type.String(), Type.Unknown(), description ? { description } : {});

// --- errors (section 7) ---

export const ErrorBodySchema = Type.Object(
  {
    error: Type.String({ description: 'Stable error code, see docs/management-api.md.' }),
    message: Type.String(),
    details: FreeObject(),
  },
  { description: 'Error' },
);
export type ErrorBody = Static<typeof ErrorBodySchema>;

/** The error body with a route-specific description (OpenAPI shows one per status). */
export const errorResponse = (description: string) => Type.Object(ErrorBodySchema.properties, { description });

// --- monitoring ---

export const HealthSchema = Type.Object({
  status: StringEnum(['healthy', 'degraded', 'unhealthy'] as const),
  uptime_seconds: Type.Number(),
  version: Type.String(),
  backends: Type.Object({
    total: Int({ description: 'Configured backends.' }),
    connected: Int(),
    healthy: Int({ description: 'Backends passing health checks.' }),
  }),
});

export const ReadySchema = Type.Object({ ready: Type.Boolean(), reason: Type.String() });

export const FeatureFlagsSchema = Type.Object({
  optimizer: Type.Boolean(),
  hot_reload: Type.Boolean(),
  outgoing_auth: Type.Boolean(),
  session_management: Type.Boolean(),
  yaml_config: Type.Boolean(),
});

export const StatusSchema = Type.Object({
  service: Type.Object({
    name: Type.String(),
    version: Type.String(),
    state: Type.String(),
    uptime_seconds: Type.Number(),
    started_at: Type.String({ description: 'ISO 8601' }),
  }),
  config: Type.Object({
    file_path: Type.String(),
    loaded_at: Type.String({ description: 'ISO 8601' }),
    backend_count: Int(),
  }),
  transport: Type.Object({
    sse_url: Type.String(),
    streamable_http_url: Type.String(),
    host: Type.String(),
    port: Int(),
  }),
  feature_flags: FeatureFlagsSchema,
  replica: Type.Object(
    {
      id: Type.String({ description: '`$GATEWAY_REPLICA_ID`, else `<hostname>-<pid>`.' }),
      sessions_store: Type.Object({
        type: StringEnum(['memory', 'redis'] as const),
        status: StringEnum(['ok', 'degraded', 'unavailable'] as const, {
          description:
            '`degraded`: Redis cannot be reached now; this replica serves the sessions it holds and stays ready. `unavailable`: not reached since this replica started; it is not ready.',
        }),
        reason: Type.Optional(Type.String({ description: 'Why it is not `ok`: the last Redis error.' })),
      }),
    },
    { description: 'Beyond the spec: this replica, and where its client sessions live (docs/scale-out.md).' },
  ),
});
export type StatusResponse = Static<typeof StatusSchema>;

export const BackendsSchema = Type.Object({ backends: Type.Array(BackendRecordSchema) });

export const GroupsQuerySchema = Type.Object({ group: Type.Optional(Type.String({ description: 'Only this group.' })) });
export const GroupsSchema = Type.Object({
  groups: Type.Record(Type.String(), Type.Object({ servers: Type.Array(Type.String()), count: Int() })),
  total_groups: Int(),
  total_servers: Int(),
});

// --- capabilities (section 2.3) ---

export const CAPABILITY_TYPES = ['tools', 'resources', 'prompts'] as const;

export const CapabilitiesQuerySchema = Type.Object({
  type: Type.Optional(StringEnum(CAPABILITY_TYPES, { description: 'Only this kind; the other lists are empty.' })),
  backend: Type.Optional(Type.String({ description: 'Only capabilities of this backend.' })),
  search: Type.Optional(Type.String({ description: 'Case-insensitive substring of the exposed or original name (or URI).' })),
});
export type CapabilitiesQuery = Static<typeof CapabilitiesQuerySchema>;

export const ToolInfoSchema = Type.Object({
  name: Type.String({ description: 'Exposed name.' }),
  original_name: Type.String({ description: 'Name at the backend.' }),
  description: Type.String(),
  backend: Type.String(),
  input_schema: FreeObject('JSON Schema of the arguments.'),
  filtered: Type.Boolean({ description: 'Hidden from clients by the backend filters.' }),
  renamed: Type.Boolean(),
  hidden_by: Type.Optional(
    Type.String({ description: 'Hidden from clients: this backend keeps the same exposed name (conflict strategy `first-wins` or `priority`).' }),
  ),
  name_error: Type.Optional(Type.String({ description: 'Hidden from clients: the exposed name breaks the MCP tool-name rules, and why.' })),
  pending: Type.Optional(StringEnum(HOLD_REASONS, { description: 'Its definition waits for approval (GET /tools/pending), and why.' })),
  quarantined: Type.Optional(Type.Boolean({ description: 'Hidden from clients until an operator approves its definition.' })),
});
export const ResourceInfoSchema = Type.Object({
  uri: Type.String(),
  name: Type.String(),
  backend: Type.String(),
  mime_type: Type.String(),
});
export const PromptInfoSchema = Type.Object({
  name: Type.String(),
  description: Type.String(),
  backend: Type.String(),
  arguments: Type.Array(FreeObject()),
});
export const CapabilitiesSchema = Type.Object({
  tools: Type.Array(ToolInfoSchema),
  resources: Type.Array(ResourceInfoSchema),
  prompts: Type.Array(PromptInfoSchema),
  route_map: Type.Record(Type.String(), Type.Array(Type.String(), { minItems: 2, maxItems: 2 }), {
    description: 'Exposed name or URI (template) → [backend, original name or URI].',
  }),
});
export type CapabilitiesResponse = Static<typeof CapabilitiesSchema>;

// --- sessions (section 2.4) ---

export const SessionRecordSchema = Type.Object({
  id: Type.String(),
  transport_type: Type.String(),
  client_name: Type.Union([Type.String(), Type.Null()], {
    description: 'Beyond the spec: the name the client gave in `initialize` (`clientInfo.name`); null before it initialized.',
  }),
  client_version: Type.Union([Type.String(), Type.Null()], { description: 'Beyond the spec: its `clientInfo.version`; null before it initialized.' }),
  protocol_version: Type.Union([Type.String(), Type.Null()], {
    description:
      'Beyond the spec: the protocol revision of the session (2025-11-25 or earlier; 2026-07-28 has no sessions, see GET /clients); null before it initialized.',
  }),
  tool_count: Int(),
  capability_snapshot: Type.Object({ tools: Int(), resources: Int(), prompts: Int() }),
  age_seconds: Type.Number(),
  idle_seconds: Type.Number(),
  ttl: Int({ description: 'Seconds of idleness after which the session expires.' }),
  expired: Type.Boolean({ description: 'idle_seconds > ttl' }),
  replica: Type.String({
    description: 'Beyond the spec: the id of the gateway replica that last served the session (`$GATEWAY_REPLICA_ID`, else `<hostname>-<pid>`).',
  }),
  user_id: Type.Union([Type.String(), Type.Null()], {
    description: 'Beyond the spec: the authenticated user that owns the session (JWT `sub`, local token name); null for an anonymous one.',
  }),
  roles: Type.Array(Type.String(), { description: "Beyond the spec: that user's roles as of its last request." }),
  waiting_input: Int({
    description:
      'Beyond the spec: its calls waiting for its input now, on this replica (a request the gateway sent the client in the middle of a call, elicitation, sampling or roots, not answered yet).',
  }),
});
export const SessionsSchema = Type.Object({
  active_sessions: Int({ description: 'Sessions not expired.' }),
  sessions: Type.Array(SessionRecordSchema),
});

export const ClientRecordSchema = Type.Object({
  name: Type.String({ description: "The program's `clientInfo.name` from its requests' `_meta` envelope ('(unnamed)' when it sent none)." }),
  version: Type.Union([Type.String(), Type.Null()]),
  protocol_version: Type.String({ description: 'The protocol revision it spoke.' }),
  user_id: Type.Union([Type.String(), Type.Null()], { description: 'The authenticated user; null for anonymous callers.' }),
  replica: Type.String({ description: 'The gateway replica that saw it.' }),
  first_seen: Type.String({ description: 'ISO 8601' }),
  last_seen: Type.String({ description: 'ISO 8601' }),
  requests: Int({ description: 'Requests it made to this replica since first seen.' }),
  waiting_input: Int({ description: 'Its calls waiting for its input (an answered `input_required` not yet repeated) on this replica now.' }),
});
export const ClientsSchema = Type.Object({
  clients: Type.Array(ClientRecordSchema, {
    description: 'Beyond the spec: clients that called without a session (protocol 2026-07-28), most recently seen first; at most 1,000 per replica.',
  }),
});

// --- events (section 2.5) ---

export const EVENTS_LIMIT_MAX = 1000;

export const EventsQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: EVENTS_LIMIT_MAX, default: 100, description: 'Newest events kept.' }),
  // Checked by the handler (api/management/iso-time.ts), which also rejects impossible dates.
  since: Type.Optional(Type.String({ description: 'ISO 8601; only events strictly after it.' })),
  severity: Type.Optional(StringEnum(SEVERITIES)),
});
export type EventsQuery = Static<typeof EventsQuerySchema>;
export const EventsSchema = Type.Object({ events: Type.Array(EventRecordSchema) });

export const BatchQuerySchema = Type.Object({
  events_limit: Type.Integer({ minimum: 1, maximum: EVENTS_LIMIT_MAX, default: 20 }),
});
export const BatchSchema = Type.Object({
  status: StatusSchema,
  backends: BackendsSchema,
  capabilities: CapabilitiesSchema,
  events: EventsSchema,
});

// --- tool search (the optimizer's find_tool, for operators) ---

export const ToolSearchQuerySchema = Type.Object({
  q: Type.String({ description: 'What the tool should do, in words (a query that matches nothing gives an empty list).' }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: OPTIMIZER_MAX_LIMIT, description: 'How many tools at most; default `optimizer.max_results`.' })),
});
export const ToolSearchSchema = Type.Object({
  tools: Type.Array(
    Type.Object({
      name: Type.String({ description: 'Exposed name.' }),
      backend: Type.String(),
      description: Type.String(),
      score: Type.Number({ description: 'Relevance (BM25+ with weights); higher is better. Tools come best first.' }),
    }),
  ),
});

// --- control ---

export const ReloadSchema = Type.Object({
  reloaded: Type.Boolean(),
  backends_added: Type.Array(Type.String()),
  backends_removed: Type.Array(Type.String()),
  backends_changed: Type.Array(Type.String()),
  // Same shape as ConfigProblem (schemas/errors.ts): what a reload could not accept.
  errors: Type.Array(
    Type.Object({
      path: Type.String({ description: 'Key path in the config file.' }),
      message: Type.String(),
      line: Type.Optional(Int()),
      column: Type.Optional(Int()),
    }),
  ),
});

export const ReloadBodySchema = Type.Object({
  dry_run: Type.Optional(
    Type.Boolean({ description: 'Beyond the spec: only say what a reload would change (the config file against the running config); change nothing.' }),
  ),
});

const ChangeSetFields = {
  backends_added: Type.Array(Type.String()),
  backends_removed: Type.Array(Type.String()),
  backends_changed: Type.Array(Type.String()),
  settings_changed: Type.Array(Type.String(), { description: 'Key paths outside `backends` whose values differ, two levels deep (`server.console`).' }),
};
const ConfigProblemsSchema = ReloadSchema.properties.errors;

/** POST /reload with `dry_run: true`. */
export const ReloadDryRunSchema = Type.Object({
  reloaded: Type.Literal(false),
  dry_run: Type.Literal(true),
  valid: Type.Boolean({ description: 'Whether the config file would load; when false, `errors` says why.' }),
  ...ChangeSetFields,
  errors: ConfigProblemsSchema,
});

export const NameParamsSchema = Type.Object({ name: Type.String({ minLength: 1 }) });

export const ReconnectSchema = Type.Object({
  name: Type.String(),
  reconnected: Type.Boolean(),
  error: Type.Union([Type.String(), Type.Null()]),
});
export const ReauthSchema = Type.Object({
  name: Type.String(),
  reauth_initiated: Type.Boolean(),
  error: Type.Union([Type.String(), Type.Null()]),
  authorization_url: Type.Union([Type.String(), Type.Null()], {
    description: 'Where the user authorizes the gateway (open it in a browser); null when no browser is needed (client_credentials) or nothing started.',
  }),
});

export const ReauthQuerySchema = Type.Object({
  user: Type.Optional(
    Type.String({ minLength: 1, description: 'Sign this user in to a backend that acts for each user (`auth.on_behalf_of.type: user_oauth`).' }),
  ),
});

export const UserTokenParamsSchema = Type.Object({ name: Type.String({ minLength: 1 }), id: Type.String({ minLength: 1 }) });

export const ShutdownBodySchema = Type.Object({
  timeout_seconds: Type.Optional(Type.Integer({ minimum: 0, description: 'Seconds to wait for in-flight requests; default server.shutdown_timeout_s.' })),
});
export const ShutdownSchema = Type.Object({ shutting_down: Type.Boolean() });

// --- registry (section 2.7) ---

export const RegistrySearchQuerySchema = Type.Object({
  q: Type.String({ pattern: '^[A-Za-z0-9 ]*[A-Za-z0-9][A-Za-z0-9 ]*$', description: 'Letters, digits and spaces; at least one letter or digit.' }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  registry: Type.Optional(Type.String({ description: 'Restrict to one registry by name.' })),
});
export const RegistryServerSchema = Type.Object({
  name: Type.String(),
  description: Type.String(),
  transport: Type.String(),
  url: Type.String(),
  command: Type.String(),
  args: Type.Array(Type.String()),
  version: Type.String(),
  categories: Type.Array(Type.String()),
});
export const RegistrySearchSchema = Type.Object({
  servers: Type.Array(RegistryServerSchema),
  registry: Type.String(),
  total: Int(),
});

/** Beyond the spec: add a registry server to the config file as a backend. */
export const RegistryInstallBodySchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200, pattern: '^\\S+$', description: 'Server name in the registry, e.g. `io.github.acme/weather`.' }),
  registry: Type.Optional(Type.String({ minLength: 1, description: 'Only this registry; default: the first configured one that has the server.' })),
  backend_name: Type.Optional(Type.String({ pattern: BACKEND_NAME_PATTERN, description: 'Default: the last segment of `name`, made a valid backend name.' })),
});
export const RegistryInstallSchema = Type.Object({
  backend: Type.String({ description: 'Name of the backend written to the config file.' }),
  entry: RegistryServerSchema,
  reload: Type.Union([ReloadSchema, Type.Null()], {
    description: 'The reload that applied it (hot reload on), else null: it applies at the next start or reload.',
  }),
});

// --- skills (section 2.6) ---

export const SkillRecordSchema = Type.Object({
  name: Type.String(),
  version: Type.String(),
  description: Type.String(),
  status: StringEnum(['enabled', 'disabled'] as const),
  tools: Int({ description: 'Gateway tools named in the manifest `tools`.' }),
  workflows: Int({ description: 'Workflows served as tools (valid ones).' }),
  author: Type.String(),
  required_tools: Type.Array(Type.String(), { description: 'Beyond the spec: the manifest `tools` and every tool a workflow step calls.' }),
  missing_tools: Type.Array(Type.String(), { description: 'Beyond the spec: required tools the gateway does not offer now; the workflows refuse to run.' }),
  workflow_errors: Type.Array(Type.Object({ workflow: Type.String(), message: Type.String() }), {
    description: 'Beyond the spec: workflows left out at load, with the reason.',
  }),
});
export type SkillRecord = Static<typeof SkillRecordSchema>;
export const SkillsSchema = Type.Object({ skills: Type.Array(SkillRecordSchema) });
export const SkillActionSchema = Type.Object({
  name: Type.String(),
  action: StringEnum(['enabled', 'disabled'] as const),
  ok: Type.Boolean(),
});

// --- definition pins (docs/tool-pinning.md) ---

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const TextChangeSchema = Type.Object({
  before: Nullable(Type.String()),
  after: Nullable(Type.String()),
});
const UnifiedDiff = (what: string) =>
  Type.String({ description: `Unified diff of ${what} as indented JSON with sorted keys, pinned → current ('' when the same).` });

const pendingFields = {
  name: Type.String({ description: 'Exposed name.' }),
  backend: Type.String(),
  reason: StringEnum(HOLD_REASONS, {
    description:
      '`changed`: differs from its pin; `new`: appeared after the first pin (`new_tools: quarantine`); `suspicious`: holds invisible characters or hidden instructions.',
  }),
  quarantined: Type.Boolean({ description: 'Hidden from clients until approved (else served and reported: mode `warn`).' }),
  since: Type.String({ description: 'ISO 8601: when this definition was first seen.' }),
  hash: Type.String({ description: 'SHA-256 of the definition waiting; approving with it approves exactly this one.' }),
  pinned_hash: Nullable(Type.String({ description: 'SHA-256 of the pinned definition; null when there is none.' })),
  findings: Type.Array(FindingSchema, { description: 'Suspicious text found, whatever the reason.' }),
};

export const PendingToolSchema = Type.Object({
  ...pendingFields,
  tool: Type.String({ description: "The backend's own name for it." }),
  diff: Type.Object({
    description: TextChangeSchema,
    title: Type.Optional(TextChangeSchema),
    input_schema: UnifiedDiff('the input schema'),
    output_schema: Type.Optional(UnifiedDiff('the output schema (only when it differs)')),
    annotations: Type.Optional(UnifiedDiff('the annotations (only when they differ)')),
  }),
});
export const PendingPromptSchema = Type.Object({
  ...pendingFields,
  prompt: Type.String({ description: "The backend's own name for it." }),
  diff: Type.Object({ description: TextChangeSchema, title: Type.Optional(TextChangeSchema), arguments: UnifiedDiff('the arguments') }),
});
export const PendingToolsSchema = Type.Object({ pending: Type.Array(PendingToolSchema) });
export const PendingPromptsSchema = Type.Object({ pending: Type.Array(PendingPromptSchema) });

export const ApproveBodySchema = Type.Object({
  hash: Type.Optional(
    Type.String({ pattern: '^[0-9a-f]{64}$', description: 'Approve only if this is still the definition waiting (the `hash` of the pending entry read).' }),
  ),
});
const approvedFields = {
  name: Type.String(),
  backend: Type.String(),
  approved: Type.Boolean(),
  hash: Type.String({ description: 'SHA-256 of the definition now pinned.' }),
};
export const ApprovedToolSchema = Type.Object({ ...approvedFields, tool: Type.String() });
export const ApprovedPromptSchema = Type.Object({ ...approvedFields, prompt: Type.String() });

// --- plugins (docs/plugins.md) ---

export const PluginCountersSchema = Type.Object({
  invocations: Int({ description: 'Calls it ran for.' }),
  blocks: Int({ description: 'Its blocks (a `permissive` plugin’s too, which only logged them; one call may be blocked on the way in and out).' }),
  redactions: Int({ description: 'Arguments and results it changed: redacted, truncated, cleaned, changed by a plugin of your own.' }),
  cache_hits: Int(),
  retries: Int(),
  errors: Int({ description: 'Its own failures: thrown, timed out, did not load.' }),
});
export const PluginRecordSchema = Type.Object({
  name: Type.String(),
  enabled: Type.Boolean(),
  execution_mode: StringEnum(EXECUTION_MODES),
  priority: Int(),
  module: Type.Union([Type.String(), Type.Null()], {
    description: 'Beyond the issue: the module of a plugin of your own (absolute path), null for a built-in.',
  }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Beyond the issue: why it did not load, or null.' }),
  counters: PluginCountersSchema,
});
export const PluginsSchema = Type.Object({ plugins: Type.Array(PluginRecordSchema, { description: 'In chain order (priority, then config order).' }) });

// --- proxy calls ---

export const ToolCallBodySchema = Type.Object({
  tool: Type.String({ minLength: 1, description: 'Tool name as exposed by the gateway.' }),
  arguments: FreeObject('Tool arguments; {} for none.'),
});
export const ToolCallSchema = Type.Object({
  tool: Type.String(),
  backend: Type.String(),
  content: Type.Array(Type.Object({ type: Type.String(), text: Type.Optional(Type.String()) }, { additionalProperties: true }), {
    description: 'Content items as the backend returned them; text items carry `text`.',
  }),
  isError: Type.Boolean({ description: 'A tool-level failure reported by the backend (status stays 200).' }),
  structuredContent: Type.Optional(FreeObject('Beyond the spec: the structured result, when the tool returned one.')),
  call_id: Type.String({ description: 'Beyond the spec: `metadata.call_id` of the audit record of this call (`GET /audit?call_id=`).' }),
});

export const ResourceReadBodySchema = Type.Object({
  uri: Type.String({ minLength: 1, description: 'Resource URI as exposed by the gateway.' }),
});
export const ResourceReadSchema = Type.Object({
  uri: Type.String(),
  backend: Type.String(),
  contents: Type.Array(
    Type.Object({
      uri: Type.String(),
      mimeType: Type.String({ description: "The backend's MIME type, or '' when it gave none." }),
      text: Type.Optional(Type.String()),
      blob: Type.Optional(Type.String({ description: 'Base64, for binary contents (instead of text).' })),
    }),
  ),
});

export const PromptGetBodySchema = Type.Object({
  name: Type.String({ minLength: 1, description: 'Prompt name as exposed by the gateway.' }),
  arguments: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Prompt arguments (strings, as MCP has them); {} or absent for none.' })),
});
export const PromptGetSchema = Type.Object({
  prompt: Type.String(),
  backend: Type.String(),
  description: Type.Optional(Type.String()),
  messages: Type.Array(
    Type.Object({ role: Type.String(), content: Type.Object({ type: Type.String(), text: Type.Optional(Type.String()) }, { additionalProperties: true }) }),
    {
      description: 'The messages as the backend rendered them (MCP `PromptMessage`s).',
    },
  ),
});

export type ReloadResponse = Static<typeof ReloadSchema>;
export type SessionRecord = Static<typeof SessionRecordSchema>;

// --- authorization (beyond the spec) ---

export const AuthorizationCheckBodySchema = Type.Object({
  roles: Type.Array(Type.String({ minLength: 1 }), { default: [], description: 'The roles of the caller in question; [] for one with none.' }),
  resource: Type.String({
    pattern: RESOURCE_NAME_PATTERN,
    description: `What is asked for: ${RESOURCE_KINDS.map((k) => `\`${k}:…\``).join(', ')} (e.g. \`tool:github_create_issue\`).`,
  }),
  user_id: Type.Optional(Type.String({ description: "The caller's id, as a `when` reads it (`caller.id`); default none." })),
  claims: Type.Optional(FreeObject("The caller's token claims (`caller.claims`); default none.")),
  arguments: Type.Optional(FreeObject("The call's arguments (`arguments`); default none.")),
  request: Type.Optional(
    Type.Object(
      {
        method: Type.Optional(Type.String({ description: 'Default: the method of a call on the resource (`tools/call`, `prompts/get`, `resources/read`).' })),
        revision: Type.Optional(Type.String({ description: 'The protocol revision, e.g. `2025-11-25`.' })),
        client_name: Type.Optional(Type.String()),
        client_version: Type.Optional(Type.String()),
      },
      { additionalProperties: false, description: 'The request (`request`), as a `when` reads it.' },
    ),
  ),
});
export const AuthorizationCheckSchema = Type.Object({
  allowed: Type.Boolean(),
  policy_index: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
    description: '0-based index of the policy that decided; null when `default_effect` applied or authorization is off.',
  }),
  effect: StringEnum(POLICY_EFFECTS),
  reason: Type.String({ description: 'Why, in a sentence: which policy decided and what its `when` did.' }),
  when: Type.Optional(Type.String({ description: 'The `when` of the policy that decided, if it has one.' })),
  conditions: Type.Array(
    Type.Object({
      policy_index: Type.Integer({ minimum: 0 }),
      outcome: StringEnum(['true', 'false', 'error'] as const),
      error: Type.Optional(Type.String({ description: 'Why it could not be evaluated (a failing `when` never lets a call through).' })),
    }),
    { description: 'Each `when` evaluated on the way to the verdict, in order.' },
  ),
  policy: Type.Union(
    [
      Type.Object({
        effect: StringEnum(POLICY_EFFECTS),
        roles: Type.Array(Type.String()),
        resources: Type.Array(Type.String()),
        when: Type.Optional(Type.String()),
      }),
      Type.Null(),
    ],
    { description: 'Beyond the spec: the policy at `policy_index` as configured; null when none decided.' },
  ),
});

// --- console sign-in (beyond the spec; docs/console.md) ---

export const SessionBodySchema = Type.Object({
  token: Type.String({
    minLength: 1,
    maxLength: 8192,
    description: 'The management token, or (with `server.management.roles`) a token `incoming_auth` accepts.',
  }),
});
export const SessionSchema = Type.Object({
  signed_in: Type.Boolean({ description: 'Whether this request may use the API (an open API counts).' }),
  user: Type.Union([Type.String(), Type.Null()], { description: 'The user id; null for the management token and an open API.' }),
  role: Type.Union([StringEnum(MANAGEMENT_ROLES), Type.Null()]),
  credential: Type.Union([StringEnum(['open', 'management_token', 'bearer', 'console_session'] as const), Type.Null()]),
  csrf_token: Type.Union([Type.String(), Type.Null()], {
    description: 'With a console session: the value every change must carry in `X-CSRF-Token`.',
  }),
  sign_in: Type.Object({
    token: Type.Boolean({ description: 'A token can be exchanged for a session (POST /session).' }),
    identity_provider: Type.Union([Type.Object({ issuer: Type.String(), login_url: Type.String() }), Type.Null()], {
      description: 'Sign-in with the identity provider of `incoming_auth` (`server.console.oidc`), else null.',
    }),
  }),
});

// --- the audit trail (beyond the spec) ---

export const AUDIT_LIMIT_MAX = 1000;
export const AuditQuerySchema = Type.Object({
  user: Type.Optional(Type.String({ minLength: 1, description: '`source.user_id`, exactly.' })),
  tool: Type.Optional(Type.String({ minLength: 1, description: '`target.capability_name`: the exposed tool (prompt, resource URI), exactly.' })),
  backend: Type.Optional(Type.String({ minLength: 1 })),
  outcome: Type.Optional(StringEnum(AUDIT_STATUSES)),
  call_id: Type.Optional(Type.String({ minLength: 1, description: 'The `call_id` of a POST /tools/call answer.' })),
  since: Type.Optional(Type.String({ description: 'ISO 8601; only records strictly after it.' })),
  until: Type.Optional(Type.String({ description: 'ISO 8601; only records at or before it.' })),
  limit: Type.Integer({ minimum: 1, maximum: AUDIT_LIMIT_MAX, default: 100, description: 'Newest records kept.' }),
});
export const AuditSchema = Type.Object({
  records: Type.Array(AuditRecord, { description: 'Oldest first.' }),
  complete: Type.Boolean({ description: 'false when the scan stopped at its byte budget (64 MiB) before reaching the start of the trail or `since`.' }),
});

// --- backends' stderr (beyond the spec) ---

export const StderrQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 200, description: 'Newest lines kept.' }),
});
export const StderrSchema = Type.Object({
  name: Type.String(),
  lines: Type.Array(Type.Object({ at: Type.String({ description: 'ISO 8601' }), text: Type.String() }), { description: 'Oldest first.' }),
});

// --- the running config (beyond the spec) ---

export const RunningConfigSchema = Type.Object({
  file_path: Type.String(),
  loaded_at: Type.String({ description: 'ISO 8601' }),
  yaml: Type.String({ description: 'The file as loaded, with every value that may be a credential replaced by `<redacted>`.' }),
});
export const ConfigValidateBodySchema = Type.Object({
  yaml: Type.String({ maxLength: 1024 * 1024, description: 'A whole config file.' }),
});
export const ConfigValidateSchema = Type.Object({
  valid: Type.Boolean(),
  ...ChangeSetFields,
  errors: ConfigProblemsSchema,
});
