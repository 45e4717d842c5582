/**
 * The configuration file's shape: the single source for the TypeScript types,
 * the ajv validation at load time and the generated `config.schema.json`.
 *
 * Every object is closed (`additionalProperties: false`) so that a typo is an
 * error naming its key path rather than a silently ignored setting.
 */
import { Type, type Static, type TSchema, type TProperties } from '@sinclair/typebox';
import { LOG_LEVELS } from './log-levels.js';
import { TOOL_NAME_CHARACTER, TOOL_NAME_PATTERN } from './tool-name.js';
import { PluginEntrySchema } from './plugins.js';
import { AuthorizationSchema, IncomingAuthSchema } from './access-config.js';
import { ManagementRolesSchema } from './management-roles.js';

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

const rename = <T extends TSchema>(name: T) =>
  Type.Object({ name: Type.Optional(name), description: Type.Optional(Type.String()) }, { additionalProperties: false });

const Renames = Type.Object(
  {
    tools: Type.Optional(
      Type.Record(
        Type.String(),
        rename(Type.String({ pattern: TOOL_NAME_PATTERN, description: 'MCP tool-name rules: letters, digits, `_`, `-`, `.`; 1 to 128 characters.' })),
      ),
    ),
    prompts: Type.Optional(Type.Record(Type.String(), rename(Type.String({ minLength: 1 })))),
  },
  { additionalProperties: false, description: 'Keyed by the original name at the backend.' },
);

/** A backend's timeouts unless its config says otherwise (seconds). */
export const DEFAULT_TIMEOUTS = { connect_s: 30, request_s: 60 } as const;

const Timeouts = Type.Object(
  {
    connect_s: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, default: DEFAULT_TIMEOUTS.connect_s, description: 'Connect, initialize and first catalog load.' }),
    ),
    request_s: Type.Optional(Type.Number({ exclusiveMinimum: 0, default: DEFAULT_TIMEOUTS.request_s, description: 'Every forwarded request.' })),
  },
  { additionalProperties: false },
);

/**
 * The MCP revision a backend connection speaks: `auto` asks the backend
 * (`server/discover`, falling back to `initialize`); a revision pins it.
 */
export const BACKEND_PROTOCOLS = ['auto', '2025-11-25', '2026-07-28'] as const;
export type BackendProtocol = (typeof BACKEND_PROTOCOLS)[number];

/** The key of the transports that carry either revision (stdio, streamable HTTP; HTTP+SSE is 2025 only). */
const protocolKey = {
  protocol: Type.Optional(
    Type.Union(
      BACKEND_PROTOCOLS.map((p) => Type.Literal(p)),
      {
        default: 'auto',
        description:
          'MCP revision: `auto` (default) probes with server/discover and falls back to initialize; `2025-11-25` always initializes; `2026-07-28` requires the modern revision.',
      },
    ),
  ),
};

/** Keys every backend may carry, whatever its transport. */
const commonBackendKeys = {
  group: Type.Optional(Type.String({ minLength: 1, default: 'default' })),
  timeouts: Type.Optional(Timeouts),
  filters: Type.Optional(Filters),
  rename: Type.Optional(Renames),
  labels: Type.Optional(StringMap('Free-form key/value labels shown in the backend record.')),
  enabled: Type.Optional(Type.Boolean({ default: true, description: 'A disabled backend is kept in config but never connected.' })),
};

/** The most tools one find_tool (or tools search) answer returns. */
export const OPTIMIZER_MAX_LIMIT = 50;

/** A size such as `512m`, `1g`, `256k` or plain bytes. */
export const SIZE_PATTERN = '^[0-9]+(\\.[0-9]+)?[bkmgBKMG]?$';

/** Limits and network of a hardened container; `containers.defaults` and a backend's `container` both use them. */
const containerLimitKeys = {
  memory: Type.Optional(Type.String({ pattern: SIZE_PATTERN, description: 'Memory limit, e.g. `512m` or `1g`.' })),
  cpus: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'CPU limit in cores, e.g. `0.5`.' })),
  pids: Type.Optional(Type.Integer({ minimum: 1, description: 'Maximum number of processes in the container.' })),
  network: Type.Optional(
    Type.Union([Type.Literal('none'), Type.Literal('bridge')], { description: '`none` (default): no network at all; `bridge`: outbound network.' }),
  ),
};

const BackendContainer = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean({ description: 'Overrides `containers.enabled` for this backend.' })),
    image: Type.Optional(Type.String({ minLength: 1, description: 'Run in this image as is instead of building one from the command.' })),
    packages: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), { description: 'Extra packages installed at build time (npm for Node bases, pip for Python bases).' }),
    ),
    ...containerLimitKeys,
  },
  { additionalProperties: false, description: 'How this stdio backend runs in its hardened container.' },
);

export const StdioBackendSchema = Type.Object(
  {
    type: Type.Literal('stdio'),
    command: Type.String({ minLength: 1 }),
    args: Type.Optional(Type.Array(Type.String())),
    env: Type.Optional(StringMap('Extra environment for the process (on top of a minimal safe set).')),
    cwd: Type.Optional(Type.String()),
    container: Type.Optional(BackendContainer),
    ...protocolKey,
    ...commonBackendKeys,
  },
  { additionalProperties: false },
);

const BearerAuth = Type.Object(
  { type: Type.Literal('bearer'), token: Type.String({ minLength: 1, description: 'Sent as `Authorization: Bearer <token>`; use `${ENV}` or `secret:`.' }) },
  { additionalProperties: false },
);

export const OAUTH_GRANTS = ['authorization_code', 'client_credentials'] as const;
export const TOKEN_ENDPOINT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'] as const;

const OAuthAuth = Type.Object(
  {
    type: Type.Literal('oauth'),
    client_id: Type.Optional(Type.String({ minLength: 1, description: 'Pre-registered client; else a metadata document URL, else dynamic registration.' })),
    client_secret: Type.Optional(Type.String({ minLength: 1 })),
    private_key: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'PEM private key of the pre-registered client, for private_key_jwt (RFC 7523) instead of a secret; use `${ENV}` or `secret:`.',
      }),
    ),
    client_metadata_url: Type.Optional(Type.String({ pattern: '^https://', description: 'Client ID Metadata Document URL used as the client_id.' })),
    scopes: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    redirect_uri: Type.Optional(
      Type.String({ pattern: '^http://(127\\.0\\.0\\.1|localhost|\\[::1\\])(:[0-9]+)?/', description: 'Fixed loopback callback; default an ephemeral port.' }),
    ),
    grant: Type.Optional(
      Type.Union(
        OAUTH_GRANTS.map((g) => Type.Literal(g)),
        { default: 'authorization_code' },
      ),
    ),
    token_endpoint_auth_method: Type.Optional(Type.Union(TOKEN_ENDPOINT_AUTH_METHODS.map((m) => Type.Literal(m)))),
  },
  { additionalProperties: false, description: 'OAuth 2.1 (MCP authorization); with only `type: oauth` everything is discovered.' },
);

export const ON_BEHALF_OF_TYPES = ['token_exchange', 'user_oauth'] as const;
export type OnBehalfOfType = (typeof ON_BEHALF_OF_TYPES)[number];
/** Why a stdio backend cannot have `auth.on_behalf_of` (the loader's message). */
export const STDIO_ON_BEHALF_OF =
  'a stdio backend cannot act on behalf of each user: it is one process shared by every caller, with one environment, so no per-user token can reach it; on_behalf_of needs an HTTP backend (streamable-http or sse)';

const HttpsOrLoopback = (description: string) => Type.String({ pattern: '^https?://[^#]+$', description });

const TokenExchange = Type.Object(
  {
    type: Type.Literal('token_exchange'),
    token_endpoint: Type.Optional(HttpsOrLoopback('The token endpoint of the authorization server that exchanges; else found from `issuer`.')),
    issuer: Type.Optional(HttpsOrLoopback('Its issuer: the token endpoint is found by discovery (RFC 8414, then OpenID).')),
    client_id: Type.String({ minLength: 1, description: "The gateway's client at that authorization server." }),
    client_secret: Type.String({ minLength: 1, description: 'Its secret; use `secret:NAME` or `${ENV}`.' }),
    audience: Type.String({ minLength: 1, description: 'Who the exchanged token is for: the backend (its `aud`).' }),
    scopes: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'Scopes asked for the exchanged token.' })),
    token_endpoint_auth_method: Type.Optional(
      Type.Union([Type.Literal('client_secret_basic'), Type.Literal('client_secret_post')], {
        description: 'How the gateway authenticates at the token endpoint; default `client_secret_basic`.',
      }),
    ),
  },
  { additionalProperties: false, description: "RFC 8693: each caller's validated token is exchanged for one meant for this backend." },
);

const UserOAuth = Type.Object(
  {
    type: Type.Literal('user_oauth'),
    issuer: HttpsOrLoopback("The backend's own authorization server."),
    client_id: Type.Optional(Type.String({ minLength: 1 })),
    client_secret: Type.Optional(Type.String({ minLength: 1, description: 'Use `secret:NAME` or `${ENV}`.' })),
    scopes: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  },
  { additionalProperties: false, description: "Each user signs in to the backend's authorization server once (OAuth 2.1 with PKCE)." },
);

const OnBehalfOfAuth = Type.Object(
  {
    type: Type.Optional(Type.Literal('on_behalf_of', { description: 'May be omitted.' })),
    on_behalf_of: Type.Union([TokenExchange, UserOAuth], {
      description: 'How the gateway obtains a token for each caller (docs/oauth.md#acting-for-the-user).',
    }),
  },
  { additionalProperties: false, description: 'Every request to the backend carries a token of the caller it is made for.' },
);

export const BackendAuthSchema = Type.Union([BearerAuth, OAuthAuth, OnBehalfOfAuth], { description: 'Outgoing authentication to the backend.' });

const httpBackend = <T extends 'sse' | 'streamable-http', K extends TProperties>(type: T, keys: K) =>
  Type.Object(
    {
      type: Type.Literal(type),
      url: Type.String({ minLength: 1, pattern: '^https?://' }),
      headers: Type.Optional(StringMap('HTTP headers sent with every request to the backend.')),
      auth: Type.Optional(BackendAuthSchema),
      ...keys,
      ...commonBackendKeys,
    },
    { additionalProperties: false },
  );

export const SseBackendSchema = httpBackend('sse', {});
export const StreamableHttpBackendSchema = httpBackend('streamable-http', protocolKey);

/** Backend (and registry) names: also used in tool prefixes, file names and container labels. */
export const BACKEND_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.-]*$';

export const BACKEND_TYPES = ['stdio', 'sse', 'streamable-http'] as const;
export type BackendType = (typeof BACKEND_TYPES)[number];

/** Per-type schemas, so the loader can give precise errors for a backend once its `type` is known. */
export const BackendSchemaByType: Record<BackendType, TSchema> = {
  stdio: StdioBackendSchema,
  sse: SseBackendSchema,
  'streamable-http': StreamableHttpBackendSchema,
};

export const BackendSchema = Type.Union([StdioBackendSchema, SseBackendSchema, StreamableHttpBackendSchema]);

/** Part of every exposed name under `prefix`, so it may only hold what a tool name may. */
export const SEPARATOR_PATTERN = `^${TOOL_NAME_CHARACTER}*$`;

export const SESSION_STORES = ['memory', 'redis'] as const;
export type SessionStoreType = (typeof SESSION_STORES)[number];

export const CONFLICT_STRATEGIES = ['prefix', 'first-wins', 'priority', 'error'] as const;

/** `security.tool_pinning.mode` (docs/tool-pinning.md). */
export const TOOL_PINNING_MODES = ['off', 'warn', 'enforce'] as const;
export type ToolPinningMode = (typeof TOOL_PINNING_MODES)[number];
/** `security.tool_pinning.new_tools`. */
export const NEW_TOOL_POLICIES = ['allow', 'quarantine'] as const;

export const ConfigSchema = Type.Object(
  {
    version: Type.Optional(Type.Union([Type.String(), Type.Number()], { description: 'Config format version, e.g. "1".' })),
    server: Section(
      {
        host: Type.String({ default: '127.0.0.1' }),
        port: Type.Integer({ minimum: 0, maximum: 65535, default: 9000 }),
        session_ttl: Type.Number({ exclusiveMinimum: 0, default: 1800, description: 'Seconds a client session may be idle before it is closed.' }),
        shutdown_timeout_s: Type.Number({ minimum: 0, default: 10, description: 'How long a graceful shutdown waits for in-flight requests.' }),
        shutdown_drain_s: Type.Number({
          minimum: 0,
          default: 5,
          description:
            'With `sessions.store: redis`: how long a stopping replica keeps listening and serving while `GET /manage/v1/ready` answers 503, so that a balancer takes it out before it refuses anything (docs/scale-out.md).',
        }),
        max_sessions: Type.Integer({ minimum: 1, default: 10000, description: 'Client sessions open at once; beyond it `initialize` gets 503.' }),
        cache_ttl_s: Type.Number({
          minimum: 0,
          default: 30,
          description:
            'Seconds a 2026-07-28 client may keep a list result (`ttlMs`; `server/discover` too); a list is kept no longer than any backend serving part of it says for its own, a resource read no longer than its backend says.',
        }),
        input_rounds: Section(
          {
            state_key: Type.Optional(
              Type.String({
                minLength: 32,
                description:
                  'Key (32+ characters; use `secret:NAME`) that seals the `requestState` the gateway hands 2026-07-28 clients. Replicas behind one balancer must share it. Unset: a random key made at start, shared through Redis with `sessions.store: redis`, else known to this process only.',
              }),
            ),
            previous_state_key: Type.Optional(
              Type.String({ minLength: 32, description: 'The key before a rotation: states it sealed are still accepted until they expire.' }),
            ),
            input_timeout_s: Type.Number({
              exclusiveMinimum: 0,
              default: 300,
              description:
                "How long a call waits for its client's input (an answered `input_required`, or a request to a 2025-11-25 client) before it is cancelled at the backend.",
            }),
            max_rounds: Type.Integer({ minimum: 1, default: 8, description: 'Rounds of input one call may ask for; one more fails the call.' }),
            max_input_bytes: Type.Integer({
              minimum: 1024,
              default: 262144,
              description: 'Largest `inputRequests` a backend may ask for in one round, and largest `inputResponses` a client may send, as JSON bytes.',
            }),
          },
          "Calls that need the client's input (elicitation, sampling, roots), in either protocol revision (docs/protocol-versions.md).",
        ),
        public_url: Type.Optional(
          Type.String({
            pattern: '^https?://[^/?#]+(/[^?#]*)?$',
            description:
              "The URL people's browsers reach this gateway at (e.g. `https://mcp.example.com`). Set, a user's sign-in to a backend that acts for each user (`on_behalf_of.type: user_oauth`) starts at the gateway's consent page `<public_url>/oauth/start/<id>` and comes back to `<public_url>/oauth/callback`, served by the gateway itself (any replica), and its host is an allowed Host; unset, to a loopback listener on the gateway's machine (docs/oauth.md#where-the-browser-comes-back).",
          }),
        ),
        allowed_hosts: Type.Optional(
          Type.Array(Type.String({ minLength: 1 }), {
            description:
              'Host header values accepted (`name` or `name:port`), on top of the defaults (loopback names when bound to loopback, else the bind host).',
          }),
        ),
        allowed_origins: Type.Optional(
          Type.Array(Type.String({ pattern: '^https?://[^/]+$' }), {
            description: 'Origin header values accepted from browsers, e.g. `https://app.example.com`. Requests without Origin always pass.',
          }),
        ),
        management: Section(
          {
            token: Type.Optional(Type.String({ minLength: 1 })),
            roles: Type.Optional(ManagementRolesSchema),
            open: Type.Boolean({
              default: false,
              description:
                'Serve the management API without a token although clients must authenticate (`incoming_auth`) or policies apply (`authorization`): for a trusted network only. Without a token and without this, such a config is refused.',
            }),
            port: Type.Optional(
              Type.Integer({
                minimum: 0,
                maximum: 65535,
                description:
                  'Serve the management API (with /manage/v1/health and /ready) on a listener of its own on this port, and not on `server.port` (where /manage/v1 is then 404); `0` picks a free port.',
              }),
            ),
            host: Type.Optional(Type.String({ minLength: 1, description: 'Address of the management listener (with `port`); default `server.host`.' })),
          },
          'Management API settings. GATEWAY_MGMT_TOKEN overrides `token` when both are set.',
        ),
        console: Section(
          {
            enabled: Type.Optional(
              Type.Boolean({ description: 'Serve the web console at `/console`. Default: on when `server.host` is a loopback address, else off.' }),
            ),
            session_ttl_s: Type.Integer({
              minimum: 60,
              maximum: 86400,
              default: 900,
              description: 'Seconds a console sign-in lasts without a request; each request extends it, up to 12 hours in all.',
            }),
            oidc: Type.Optional(
              Type.Object(
                {
                  client_id: Type.String({
                    minLength: 1,
                    description: "The console's client at the identity provider of `incoming_auth` (a public client with PKCE).",
                  }),
                  client_secret: Type.Optional(
                    Type.String({ minLength: 1, description: 'When the provider registered it as a confidential client; use `${ENV}` or `secret:`.' }),
                  ),
                  scopes: Type.Array(Type.String({ minLength: 1 }), { default: ['openid'], description: 'Scopes asked for at sign-in.' }),
                },
                {
                  additionalProperties: false,
                  description: 'Sign-in with the identity provider of `incoming_auth` (`jwt`, `oidc`): authorization code with PKCE (docs/console.md).',
                },
              ),
            ),
          },
          'The web console for operators (docs/console.md).',
        ),
      },
      'Listen address and client session settings.',
    ),
    sessions: Section(
      {
        store: Type.Union(
          SESSION_STORES.map((s) => Type.Literal(s)),
          {
            default: 'memory',
            description: '`memory`: sessions live in this process; `redis`: in Redis, shared by every replica (then `sessions.redis.url` is required).',
          },
        ),
        replay_s: Type.Number({
          exclusiveMinimum: 0,
          default: 60,
          description:
            'Seconds the events of an SSE stream are kept for a client that resumes it (Last-Event-ID); a call whose dropped stream is not resumed within it is cancelled.',
        }),
        redis: Section(
          {
            url: Type.Optional(
              Type.String({ pattern: '^rediss?://', description: '`redis://[user:pass@]host:port/db`, `rediss://` for TLS; use `${REDIS_URL}`.' }),
            ),
            key_prefix: Type.String({
              minLength: 1,
              default: 'mcp-gateway',
              description: 'Prefix of every key and channel: several gateways may share one Redis.',
            }),
          },
          'The Redis of `sessions.store: redis`.',
        ),
      },
      'Where client sessions live: one process, or Redis shared by many replicas.',
    ),
    backends: Type.Record(Type.String({ pattern: BACKEND_NAME_PATTERN }), BackendSchema, {
      default: {},
      description: 'Backend MCP servers keyed by name.',
    }),
    conflict_resolution: Section(
      {
        strategy: Type.Union(
          CONFLICT_STRATEGIES.map((s) => Type.Literal(s)),
          { default: 'prefix' },
        ),
        separator: Type.String({ default: '_', pattern: SEPARATOR_PATTERN }),
        order: Type.Optional(
          Type.Array(Type.String({ minLength: 1 }), {
            uniqueItems: true,
            description: 'Strategy `priority`: backends in the order they win a name; backends not listed come after, in config order.',
          }),
        ),
      },
      'What happens when two backends expose the same tool or prompt name.',
    ),
    incoming_auth: IncomingAuthSchema,
    authorization: AuthorizationSchema,
    audit: Section(
      {
        enabled: Type.Boolean({ default: true }),
        file: Type.String({ default: 'logs/audit.jsonl' }),
        max_size_mb: Type.Number({ exclusiveMinimum: 0, default: 100 }),
        backup_count: Type.Integer({ minimum: 0, default: 5 }),
        console: Type.Boolean({ default: false, description: 'Also print each audit record on the console (it always goes to the file).' }),
      },
      'Audit trail of every MCP operation.',
    ),
    feature_flags: Section(
      {
        hot_reload: Type.Boolean({ default: false, description: 'Watch the config file and the skills directory; allow POST /reload.' }),
        optimizer: Type.Boolean({ default: false, description: 'Turn the tool-list optimizer on with its settings (same as `optimizer.enabled: true`).' }),
      },
      'Feature switches.',
    ),
    optimizer: Section(
      {
        enabled: Type.Boolean({
          default: false,
          description: 'Replace the tool list clients see with `find_tool` and `call_tool` (plus `keep_tools`).',
        }),
        keep_tools: Type.Array(Type.String({ minLength: 1 }), {
          default: [],
          description: 'Globs over exposed tool names: these are still listed as themselves.',
        }),
        max_results: Type.Integer({
          minimum: 1,
          maximum: OPTIMIZER_MAX_LIMIT,
          default: 5,
          description: `How many tools find_tool returns when the caller gives no limit (a caller may ask for up to ${OPTIMIZER_MAX_LIMIT}).`,
        }),
      },
      'Tool search for large catalogs: clients find tools with find_tool and call them with call_tool.',
    ),
    controller: Section(
      {
        concurrency: Type.Integer({ minimum: 1, default: 8, description: 'Connect/disconnect actions running at once.' }),
        rate_limit_per_s: Type.Integer({ minimum: 1, default: 20, description: 'Actions started per second at most.' }),
        backoff_initial_ms: Type.Integer({ minimum: 1, default: 1000 }),
        backoff_max_ms: Type.Integer({ minimum: 1, default: 60000 }),
        backoff_jitter: Type.Number({ minimum: 0, maximum: 1, default: 0.2 }),
        reload_debounce_ms: Type.Integer({ minimum: 0, default: 300 }),
        resync_s: Type.Number({
          exclusiveMinimum: 0,
          default: 300,
          description: 'Every backend is reconciled at least this often, even when no event arrives.',
        }),
        first_connect_wait_s: Type.Number({
          minimum: 0,
          default: 5,
          description:
            'While a backend is in its first connect attempt, how long a name no backend serves yet (a tool call, a prompt, a read) and a list wait for it before they are answered (docs/controller.md).',
        }),
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
    containers: Section(
      {
        enabled: Type.Union([Type.Literal('auto'), Type.Boolean()], {
          default: 'auto',
          description: '`auto`: containers when a runtime answers, else bare processes (with a warning); `true`: always (fail closed); `false`: never.',
        }),
        socket: Type.Optional(
          Type.String({ minLength: 1, description: 'Docker-compatible API socket path; default: DOCKER_HOST, then the usual Podman and Docker sockets.' }),
        ),
        base_images: Section(
          {
            node: Type.String({ default: 'docker.io/library/node:22-slim' }),
            python: Type.String({ default: 'ghcr.io/astral-sh/uv:python3.12-bookworm-slim' }),
            generic: Type.String({ default: 'docker.io/library/debian:bookworm-slim' }),
          },
          'Base images by command: npx/node, uvx/python/pip, anything else.',
        ),
        defaults: Section(
          {
            memory: Type.String({ pattern: SIZE_PATTERN, default: '512m' }),
            cpus: Type.Number({ exclusiveMinimum: 0, default: 1 }),
            pids: Type.Integer({ minimum: 1, default: 256 }),
            network: Type.Union([Type.Literal('none'), Type.Literal('bridge')], { default: 'none' }),
          },
          'Limits of every container unless a backend overrides them.',
        ),
      },
      'Hardened containers for stdio backends.',
    ),
    skills: Section(
      {
        directory: Type.Optional(Type.String({ minLength: 1, description: 'Default: `skills/` beside the config file.' })),
        default_status: Type.Union([Type.Literal('enabled'), Type.Literal('disabled')], { default: 'disabled', description: 'Status of a newly found skill.' }),
      },
      'Skills: folders with a SKILL.md and/or manifest.json.',
    ),
    security: Section(
      {
        tool_pinning: Section(
          {
            mode: Type.Union(
              TOOL_PINNING_MODES.map((m) => Type.Literal(m)),
              {
                default: 'warn',
                description:
                  '`warn`: a changed or suspicious definition stays served and is reported; `enforce`: it is quarantined until an operator approves it; `off`: no pins.',
              },
            ),
            new_tools: Type.Union(
              NEW_TOOL_POLICIES.map((p) => Type.Literal(p)),
              { default: 'allow', description: "`quarantine`: a tool or prompt that appears after a backend's first catalog waits for approval." },
            ),
          },
          'Trust on first use for tool and prompt definitions: pinned by hash, held back when they change (docs/tool-pinning.md).',
        ),
      },
      'Security policies.',
    ),
    registries: Type.Array(
      Type.Object(
        {
          name: Type.String({ pattern: BACKEND_NAME_PATTERN }),
          url: Type.String({ pattern: '^https?://' }),
          timeout_s: Type.Optional(Type.Number({ exclusiveMinimum: 0, default: 10 })),
          token: Type.Optional(Type.String({ minLength: 1, description: 'Sent to this registry only, as a bearer token.' })),
        },
        { additionalProperties: false },
      ),
      { default: [], description: 'MCP registries (API v0.1) searched in order by GET /registry/search.' },
    ),
    plugins: Type.Array(PluginEntrySchema, {
      default: [],
      description: 'The plugin chain every tool call, prompt get and resource read passes through (docs/plugins.md); none: no chain at all.',
    }),
    logging: Section(
      {
        level: Type.Union(
          LOG_LEVELS.map((l) => Type.Literal(l)),
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
export type ToolPinningSettings = GatewayConfig['security']['tool_pinning'];
export type BackendAuth = Static<typeof BackendAuthSchema>;
export type OnBehalfOfSpec = Static<typeof OnBehalfOfAuth>['on_behalf_of'];
export type TokenExchangeSpec = Static<typeof TokenExchange>;
export type UserOAuthSpec = Static<typeof UserOAuth>;
export type BackendContainerSpec = Static<typeof BackendContainer>;
