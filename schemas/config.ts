/**
 * The configuration file's shape: the single source for the TypeScript types,
 * the ajv validation at load time and the generated `config.schema.json`.
 *
 * Every object is closed (`additionalProperties: false`) so that a typo is an
 * error naming its key path rather than a silently ignored setting.
 */
import { Type, type Static, type TSchema, type TProperties } from '@sinclair/typebox';

/** A closed object whose missing value defaults to `{}` so nested defaults apply. */
const Section = <T extends TProperties>(props: T, description: string) => Type.Object(props, { additionalProperties: false, default: {}, description });

const StringMap = (description: string) => Type.Record(Type.String(), Type.String(), { description });

const GlobList = Type.Array(Type.String({ minLength: 1 }), {
  description: 'Glob patterns on the original capability names at the backend.',
});

const FilterRule = Type.Object(
  {
    allow: Type.Optional(GlobList),
    deny: Type.Optional(GlobList),
  },
  {
    additionalProperties: false,
    description: 'A name passes when it matches some `allow` (or `allow` is absent) and no `deny`. Deny wins.',
  },
);

const Filters = Type.Object(
  {
    tools: Type.Optional(FilterRule),
    resources: Type.Optional(FilterRule),
    prompts: Type.Optional(FilterRule),
  },
  { additionalProperties: false },
);

const Rename = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1 })),
    description: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

const Renames = Type.Object(
  {
    tools: Type.Optional(Type.Record(Type.String(), Rename)),
    prompts: Type.Optional(Type.Record(Type.String(), Rename)),
  },
  { additionalProperties: false, description: 'Keyed by the original name at the backend.' },
);

const Timeouts = Type.Object(
  {
    connect_s: Type.Optional(Type.Number({ exclusiveMinimum: 0, default: 30 })),
    request_s: Type.Optional(Type.Number({ exclusiveMinimum: 0, default: 60 })),
  },
  { additionalProperties: false },
);

/** Keys every backend may carry, whatever its transport. */
const commonBackendKeys = {
  group: Type.Optional(Type.String({ minLength: 1, default: 'default' })),
  timeouts: Type.Optional(Timeouts),
  filters: Type.Optional(Filters),
  rename: Type.Optional(Renames),
  labels: Type.Optional(StringMap('Free-form key/value labels shown in the backend record.')),
  enabled: Type.Optional(Type.Boolean({ default: true, description: 'A disabled backend is kept in config but never connected.' })),
};

export const StdioBackendSchema = Type.Object(
  {
    type: Type.Literal('stdio'),
    command: Type.String({ minLength: 1 }),
    args: Type.Optional(Type.Array(Type.String())),
    env: Type.Optional(StringMap('Extra environment for the process (on top of a minimal safe set).')),
    cwd: Type.Optional(Type.String()),
    ...commonBackendKeys,
  },
  { additionalProperties: false },
);

const httpBackend = <T extends 'sse' | 'streamable-http'>(type: T) =>
  Type.Object(
    {
      type: Type.Literal(type),
      url: Type.String({ minLength: 1, pattern: '^https?://' }),
      headers: Type.Optional(StringMap('HTTP headers sent with every request to the backend.')),
      ...commonBackendKeys,
    },
    { additionalProperties: false },
  );

export const SseBackendSchema = httpBackend('sse');
export const StreamableHttpBackendSchema = httpBackend('streamable-http');

export const BACKEND_TYPES = ['stdio', 'sse', 'streamable-http'] as const;
export type BackendType = (typeof BACKEND_TYPES)[number];

/** Per-type schemas, so the loader can give precise errors for a backend once its `type` is known. */
export const BackendSchemaByType: Record<BackendType, TSchema> = {
  stdio: StdioBackendSchema,
  sse: SseBackendSchema,
  'streamable-http': StreamableHttpBackendSchema,
};

export const BackendSchema = Type.Union([StdioBackendSchema, SseBackendSchema, StreamableHttpBackendSchema]);

export const CONFLICT_STRATEGIES = ['prefix', 'first-wins', 'error'] as const;

export const ConfigSchema = Type.Object(
  {
    version: Type.Optional(Type.Union([Type.String(), Type.Number()], { description: 'Config format version, e.g. "1".' })),
    server: Section(
      {
        host: Type.String({ default: '127.0.0.1' }),
        port: Type.Integer({ minimum: 0, maximum: 65535, default: 9000 }),
        session_ttl: Type.Number({ exclusiveMinimum: 0, default: 1800, description: 'Seconds a client session may be idle before it is closed.' }),
        shutdown_timeout_s: Type.Number({ minimum: 0, default: 10, description: 'How long a graceful shutdown waits for in-flight requests.' }),
        management: Section(
          { token: Type.Optional(Type.String({ minLength: 1 })) },
          'Management API settings. GATEWAY_MGMT_TOKEN overrides `token` when both are set.',
        ),
      },
      'Listen address and client session settings.',
    ),
    backends: Type.Record(Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$' }), BackendSchema, {
      default: {},
      description: 'Backend MCP servers keyed by name.',
    }),
    conflict_resolution: Section(
      {
        strategy: Type.Union(
          CONFLICT_STRATEGIES.map((s) => Type.Literal(s)),
          { default: 'prefix' },
        ),
        separator: Type.String({ default: '_' }),
      },
      'What happens when two backends expose the same tool or prompt name.',
    ),
    audit: Section(
      {
        enabled: Type.Boolean({ default: true }),
        file: Type.String({ default: 'logs/audit.jsonl' }),
        max_size_mb: Type.Number({ exclusiveMinimum: 0, default: 100 }),
        backup_count: Type.Integer({ minimum: 0, default: 5 }),
      },
      'Audit trail of every MCP operation.',
    ),
    feature_flags: Section(
      {
        hot_reload: Type.Boolean({ default: false }),
        optimizer: Type.Boolean({ default: false }),
        outgoing_auth: Type.Boolean({ default: false }),
        session_management: Type.Boolean({ default: true }),
        yaml_config: Type.Boolean({ default: true }),
      },
      'Feature switches.',
    ),
    controller: Section(
      {
        concurrency: Type.Integer({ minimum: 1, default: 8, description: 'Connect/disconnect actions running at once.' }),
        rate_limit_per_s: Type.Integer({ minimum: 1, default: 20, description: 'Actions started per second at most.' }),
        backoff_initial_ms: Type.Integer({ minimum: 1, default: 1000 }),
        backoff_max_ms: Type.Integer({ minimum: 1, default: 60000 }),
        backoff_jitter: Type.Number({ minimum: 0, maximum: 1, default: 0.2 }),
        reload_debounce_ms: Type.Integer({ minimum: 0, default: 300 }),
      },
      'Reconcile loop tuning.',
    ),
    health: Section(
      {
        interval_s: Type.Number({ exclusiveMinimum: 0, default: 30 }),
        timeout_s: Type.Number({ exclusiveMinimum: 0, default: 5 }),
        degraded_latency_ms: Type.Number({ exclusiveMinimum: 0, default: 1000 }),
      },
      'Periodic MCP ping of every connected backend.',
    ),
    events: Section(
      {
        buffer_size: Type.Integer({ minimum: 1, default: 1000 }),
        heartbeat_s: Type.Number({ exclusiveMinimum: 0, default: 30 }),
      },
      'Event buffer and live stream settings.',
    ),
    logging: Section(
      {
        level: Type.Union(
          ['trace', 'debug', 'info', 'warn', 'audit', 'error', 'fatal', 'silent'].map((l) => Type.Literal(l)),
          { default: 'info' },
        ),
        file: Type.Optional(Type.String({ description: 'Also write JSON log lines to this file.' })),
      },
      'Gateway logging.',
    ),
  },
  { additionalProperties: false, $id: 'https://mcp-gateway.local/config.schema.json', title: 'MCP gateway configuration' },
);

export type GatewayConfig = Static<typeof ConfigSchema>;
export type BackendSpec = Static<typeof BackendSchema>;
export type StdioBackendSpec = Static<typeof StdioBackendSchema>;
export type HttpBackendSpec = Static<typeof SseBackendSchema> | Static<typeof StreamableHttpBackendSchema>;
export type ConflictStrategy = (typeof CONFLICT_STRATEGIES)[number];
export type FilterRuleSpec = Static<typeof FilterRule>;
