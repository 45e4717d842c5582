/**
 * The `plugins:` section: the chain every tool call, prompt get and resource
 * read passes through (docs/plugins.md). One entry per plugin, built in
 * (chosen by `name`) or of the operator's own (`module`); each built-in's
 * `settings` have a schema of their own here, applied (with its defaults)
 * through `if`/`then`, so the generated JSON Schema is as precise as the loader.
 */
import { Type, type Static, type TLiteral, type TSchema, type TUnion } from '@sinclair/typebox';

/** The methods a plugin can see, as MCP names them (`conditions.methods`). */
export const HOOK_METHODS = ['tools/call', 'prompts/get', 'resources/read'] as const;
export type HookMethod = (typeof HOOK_METHODS)[number];

export const EXECUTION_MODES = ['enforce', 'enforce_ignore_error', 'permissive', 'disabled'] as const;
export type ExecutionMode = (typeof EXECUTION_MODES)[number];

/** Defaults of every entry's common keys (one source: the schema and the docs quote them). */
export const PLUGIN_DEFAULTS = { enabled: true, priority: 100, timeout_s: 5, execution_mode: 'enforce_ignore_error' } as const;

/** A union of string literals whose static type stays that union (a mapped array would widen it to string). */
const literals = <T extends string>(values: readonly T[], options: Record<string, unknown> = {}) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  ) as unknown as TUnion<Array<TLiteral<T>>>;

/** A closed settings object whose missing value defaults to `{}`, so its own defaults apply. */
const Settings = <T extends Record<string, TSchema>>(props: T) => Type.Object(props, { additionalProperties: false, default: {} });

export const RATE_LIMIT_SCOPES = ['client', 'session', 'tool', 'backend'] as const;
export type RateLimitScope = (typeof RATE_LIMIT_SCOPES)[number];

export const PII_CATEGORIES = ['email', 'phone', 'credit_card', 'iban'] as const;
export type PiiCategory = (typeof PII_CATEGORIES)[number];

const Where = literals(['arguments', 'results', 'both'] as const, {
  default: 'both',
  description: "What is scanned: the arguments on the way in, what comes back (results, a failed call's error, the log messages relayed to clients), or both.",
});
const GuardAction = literals(['redact', 'block'] as const, {
  default: 'redact',
  description: '`redact`: the match becomes `[REDACTED:<kind>]`; `block`: the call fails with an error naming the kind.',
});

/** Each built-in plugin's settings, by name. */
export const BUILTIN_SETTINGS = {
  rate_limiter: Settings({
    max_requests: Type.Integer({ minimum: 1, default: 60, description: 'Calls allowed per window and key.' }),
    window_s: Type.Number({ exclusiveMinimum: 0, default: 60, description: 'The window, in seconds; it starts with the first call of a key.' }),
    per: literals(RATE_LIMIT_SCOPES, {
      default: 'client',
      description: 'What is counted: `client` (the authenticated user, else the client IP), `session`, `tool` or `backend`.',
    }),
  }),
  circuit_breaker: Settings({
    failure_threshold: Type.Integer({ minimum: 1, default: 5, description: 'Consecutive failures (errors, timeouts) of a backend that open its circuit.' }),
    cooldown_s: Type.Number({ exclusiveMinimum: 0, default: 30, description: 'How long an open circuit refuses calls before one trial call.' }),
  }),
  retry_with_backoff: Settings({
    max_retries: Type.Integer({ minimum: 1, default: 2, description: 'Retries after the first attempt.' }),
    base_delay_ms: Type.Integer({ minimum: 0, default: 200, description: 'Delay before the first retry; it doubles with each retry.' }),
    max_delay_ms: Type.Integer({ minimum: 0, default: 2000, description: 'Upper bound of a delay.' }),
  }),
  response_cache: Settings({
    ttl_s: Type.Number({ exclusiveMinimum: 0, default: 300, description: 'How long an answer is served from the cache.' }),
    max_entries: Type.Integer({ minimum: 1, default: 1000, description: 'Answers kept; the least recently used go first.' }),
  }),
  output_length_guard: Settings({
    max_chars: Type.Integer({ minimum: 1, default: 50000, description: 'Characters of text a result may carry.' }),
    action: literals(['truncate', 'block'] as const, { default: 'truncate', description: '`truncate`: cut the text to `max_chars`; `block`: fail the call.' }),
  }),
  secrets_detection: Settings({ where: Where, action: GuardAction }),
  pii_filter: Settings({
    categories: Type.Array(literals(PII_CATEGORIES), {
      minItems: 1,
      uniqueItems: true,
      default: [...PII_CATEGORIES],
      description: 'Which kinds of personal data are looked for.',
    }),
    where: Where,
    action: GuardAction,
  }),
  markdown_cleaner: Settings({
    strip_images: Type.Boolean({ default: true, description: 'Replace `![alt](url)` by its alt text.' }),
    strip_links: Type.Boolean({ default: false, description: 'Replace `[text](url)` by its text.' }),
    strip_html: Type.Boolean({ default: true, description: 'Remove HTML tags and comments (outside code).' }),
  }),
} as const;

export type BuiltinName = keyof typeof BUILTIN_SETTINGS;
export const BUILTIN_NAMES = Object.keys(BUILTIN_SETTINGS) as BuiltinName[];
export type BuiltinSettings<N extends BuiltinName> = Static<(typeof BUILTIN_SETTINGS)[N]>;

/** Plugin names: letters, digits, `_`, `.`, `-` (they appear in audit records and the API). */
export const PLUGIN_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.-]*$';

const Conditions = Type.Object(
  {
    methods: Type.Optional(Type.Array(literals(HOOK_METHODS), { minItems: 1, uniqueItems: true, description: 'Only these methods.' })),
    backends: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), { minItems: 1, description: 'Only calls owned by these backends (and only their relayed log messages).' }),
    ),
    tools: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        minItems: 1,
        description: 'Only tool calls whose exposed name matches one of these globs (then never prompts or resources).',
      }),
    ),
  },
  { additionalProperties: false, description: 'When the plugin runs; every condition given must hold.' },
);

export const PluginEntrySchema = Type.Object(
  {
    name: Type.String({ pattern: PLUGIN_NAME_PATTERN, description: `A built-in (${BUILTIN_NAMES.join(', ')}) or, with \`module\`, a name of your own.` }),
    module: Type.Optional(Type.String({ minLength: 1, description: 'An ES module of your own, relative to the config file.' })),
    settings: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Handed to the plugin; a built-in checks its own.' })),
    enabled: Type.Optional(Type.Boolean({ default: PLUGIN_DEFAULTS.enabled })),
    priority: Type.Optional(Type.Integer({ default: PLUGIN_DEFAULTS.priority, description: 'Lower runs first; equal priorities keep config order.' })),
    timeout_s: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, default: PLUGIN_DEFAULTS.timeout_s, description: 'How long one hook of the plugin may take.' }),
    ),
    execution_mode: Type.Optional(
      literals(EXECUTION_MODES, {
        default: PLUGIN_DEFAULTS.execution_mode,
        description: 'What its blocks and failures do to the call (docs/plugins.md).',
      }),
    ),
    conditions: Type.Optional(Conditions),
  },
  {
    additionalProperties: false,
    // A built-in's settings are checked (and filled with defaults) by its own schema.
    allOf: BUILTIN_NAMES.map((name) => ({
      if: { properties: { name: { const: name } }, required: ['name'] },
      then: { properties: { settings: BUILTIN_SETTINGS[name] } },
    })),
  },
);

/** An entry as the loader leaves it: every default filled in. */
export interface PluginEntry {
  name: string;
  module?: string;
  settings: Record<string, unknown>;
  enabled: boolean;
  priority: number;
  timeout_s: number;
  execution_mode: ExecutionMode;
  conditions?: Static<typeof Conditions>;
}

export const isBuiltinName = (name: string): name is BuiltinName => Object.hasOwn(BUILTIN_SETTINGS, name);
