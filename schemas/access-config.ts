/**
 * Who may call the gateway's MCP endpoints, and what: the `incoming_auth`
 * and `authorization` sections of the config (docs/incoming-auth.md). Kept
 * apart from the rest of the config schema (./config.ts includes them) so the
 * names and patterns that the runtime also needs have one source.
 */
import { Type, type Static } from '@sinclair/typebox';

export const INCOMING_AUTH_TYPES = ['anonymous', 'local', 'jwt', 'oidc'] as const;
export type IncomingAuthType = (typeof INCOMING_AUTH_TYPES)[number];

/**
 * Asymmetric JWS algorithms only: a symmetric one (HS*) would let anyone who
 * holds the public key sign, and `none` signs nothing.
 */
export const JWT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;
export const DEFAULT_JWT_ALGORITHMS = ['RS256', 'ES256'] as const;
export const DEFAULT_ROLES_CLAIM = 'roles';
export const DEFAULT_CLOCK_SKEW_S = 30;
/** Local tokens are secrets a client sends on every request: long enough not to be guessed. */
export const LOCAL_TOKEN_MIN_LENGTH = 16;

/**
 * Which keys each type reads; a key of another type is a config error
 * (controller/config/access-checks.ts). The keys of one type have no schema
 * default, so filling defaults never adds a key another type would refuse:
 * the runtime applies DEFAULT_*.
 */
export const INCOMING_AUTH_KEYS: Record<IncomingAuthType, readonly string[]> = {
  anonymous: ['type'],
  local: ['type', 'tokens'],
  jwt: ['type', 'issuer', 'jwks_uri', 'audience', 'algorithms', 'roles_claim', 'required_scopes', 'scopes_supported', 'clock_skew_s'],
  oidc: ['type', 'issuer', 'audience', 'algorithms', 'roles_claim', 'required_scopes', 'scopes_supported', 'clock_skew_s'],
};
/** Keys a type cannot do without. */
export const INCOMING_AUTH_REQUIRED: Record<IncomingAuthType, readonly string[]> = {
  anonymous: [],
  local: ['tokens'],
  jwt: ['issuer', 'jwks_uri', 'audience'],
  oidc: ['issuer', 'audience'],
};

const HttpUrl = (description: string) => Type.String({ pattern: '^https?://[^#]+$', description });
const Names = (description: string) => Type.Array(Type.String({ minLength: 1 }), { description });

const LocalToken = Type.Object(
  {
    name: Type.String({ minLength: 1, description: 'The identity: audit `source.user_id`, the session user.' }),
    token: Type.String({ minLength: LOCAL_TOKEN_MIN_LENGTH, description: 'The bearer token; use `${ENV}` or `secret:`.' }),
    roles: Type.Array(Type.String({ minLength: 1 }), { default: [], description: 'Roles the policies see for this token.' }),
  },
  { additionalProperties: false },
);

export const IncomingAuthSchema = Type.Object(
  {
    type: Type.Union(
      INCOMING_AUTH_TYPES.map((t) => Type.Literal(t)),
      {
        default: 'anonymous',
        description: '`anonymous`: no credentials; `local`: static tokens; `jwt`: JWTs checked with a JWKS; `oidc`: the same, found by discovery.',
      },
    ),
    tokens: Type.Optional(Type.Array(LocalToken, { minItems: 1, description: '(`local`) static bearer tokens, each a named identity with roles.' })),
    issuer: Type.Optional(HttpUrl('(`jwt`, `oidc`) the `iss` every token must carry; `oidc` discovers the JWKS from it.')),
    jwks_uri: Type.Optional(HttpUrl('(`jwt`) where the signing keys are.')),
    audience: Type.Optional(HttpUrl("(`jwt`, `oidc`) this gateway's resource identifier (RFC 8707): every token's `aud` must name it.")),
    algorithms: Type.Optional(
      Type.Array(Type.Union(JWT_ALGORITHMS.map((a) => Type.Literal(a))), {
        minItems: 1,
        uniqueItems: true,
        description: `Accepted signature algorithms (asymmetric only); default ${DEFAULT_JWT_ALGORITHMS.join(', ')}.`,
      }),
    ),
    roles_claim: Type.Optional(
      Type.String({
        minLength: 1,
        description: `Claim holding the roles (a dotted path; default \`${DEFAULT_ROLES_CLAIM}\`); \`realm_access.roles\` is read too.`,
      }),
    ),
    required_scopes: Type.Optional(Names('Scopes every token must carry; without one the answer is 403 `insufficient_scope`.')),
    scopes_supported: Type.Optional(Names('Scopes advertised in the protected resource metadata.')),
    clock_skew_s: Type.Optional(
      Type.Number({ minimum: 0, maximum: 300, description: `Tolerance on \`exp\` and \`nbf\`, seconds (default ${DEFAULT_CLOCK_SKEW_S}).` }),
    ),
  },
  { additionalProperties: false, default: {}, description: 'Authentication of MCP clients on /mcp and /sse (docs/incoming-auth.md).' },
);

export const RESOURCE_KINDS = ['tool', 'resource', 'prompt', 'server', 'group'] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

/** A policy pattern names a kind (`tool:github_*`) or starts with a wildcard (`*`): anything else could never match. */
export const RESOURCE_PATTERN = `^(\\*|(${RESOURCE_KINDS.join('|')}):)`;
/** A name a policy judges (`tool:github_create_issue`, `server:memory`): what `POST /authorization/check` takes. */
export const RESOURCE_NAME_PATTERN = `^(${RESOURCE_KINDS.join('|')}):.+`;
export const RESOURCE_PATTERN_HINT = `must start with one of ${RESOURCE_KINDS.map((k) => `\`${k}:\``).join(', ')} or with \`*\``;

/** The kinds a capability itself can be (servers and groups are only ever matched through one). */
export type CapabilityKind = Extract<ResourceKind, 'tool' | 'resource' | 'prompt'>;

export const POLICY_EFFECTS = ['allow', 'deny'] as const;
export type PolicyEffect = (typeof POLICY_EFFECTS)[number];

/** A verdict of the policies on one capability for one caller. */
export interface AccessDecision {
  allowed: boolean;
  /** 0-based index of the policy that decided; null when `default_effect` applied (or authorization is off). */
  policyIndex: number | null;
  effect: PolicyEffect;
}

/** The tool hints a `when` rule reads as `tool.annotations` (MCP ToolAnnotations; absent ones take the MCP defaults). */
export interface ToolHints {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** What a `when` rule reads as `request`: the MCP request being judged. */
export interface RequestFacts {
  /** `tools/call`, `prompts/get`, `resources/read`, …; default: the one of the capability's kind. */
  method?: string;
  /** The protocol revision the session negotiated (`2025-11-25`, …). */
  revision?: string;
  /** The client's `clientInfo.name` and `.version` from `initialize`. */
  clientName?: string;
  clientVersion?: string;
}

/**
 * What a decision on one call may see besides the caller's roles and the
 * capability's names: the facts `authorization.policies[].when` reads
 * (docs/incoming-auth.md#conditions-when). Without them a call is judged
 * with empty arguments and the default request.
 */
export interface CallFacts {
  /** The call's arguments (`tools/call`, `prompts/get`). */
  arguments?: Readonly<Record<string, unknown>>;
  /** The tool's annotations, from its definition in the route table. */
  annotations?: ToolHints;
  request?: RequestFacts;
  /** The caller's token claims (CallerIdentity.claims): never logged. */
  claims?: Readonly<Record<string, unknown>>;
}

const Effect = (extra: { default?: PolicyEffect; description?: string } = {}) =>
  Type.Union(
    POLICY_EFFECTS.map((e) => Type.Literal(e)),
    extra,
  );

const Policy = Type.Object(
  {
    effect: Effect(),
    roles: Type.Array(Type.String({ minLength: 1 }), {
      minItems: 1,
      description: 'Callers with any of these roles; `*` is any caller, even one with no roles.',
    }),
    resources: Type.Array(Type.String({ pattern: RESOURCE_PATTERN, description: RESOURCE_PATTERN_HINT }), {
      minItems: 1,
      description: 'Globs over `tool:<name>`, `resource:<uri>`, `prompt:<name>`, `server:<backend>`, `group:<group>`; `*` also matches `/`.',
    }),
    when: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'A CEL expression over `caller`, `tool`, `arguments` and `request`: the policy applies only when it is true (docs/incoming-auth.md#conditions-when).',
      }),
    ),
  },
  { additionalProperties: false },
);

export const AuthorizationSchema = Type.Object(
  {
    enabled: Type.Boolean({ default: false, description: 'Off: every caller may list and call everything.' }),
    default_effect: Effect({ default: 'deny', description: 'When no policy matches.' }),
    policies: Type.Array(Policy, { default: [], description: 'Checked in order; the first that matches decides.' }),
  },
  { additionalProperties: false, default: {}, description: 'Role-based access to tools, resources and prompts (docs/incoming-auth.md).' },
);

export type IncomingAuthSpec = Static<typeof IncomingAuthSchema>;
export type AuthorizationSpec = Static<typeof AuthorizationSchema>;
