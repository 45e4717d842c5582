/**
 * The authorization policies as units: first match wins, `*` roles match a
 * caller without roles, globs see names not paths, per-caller lists (and
 * that they are cached per route table and role set), the management
 * caller, the verdict of POST /authorization/check, and the config checks.
 */
import { describe, expect, it } from 'vitest';
import { AccessPolicy } from '../../../../runtime/access/access-policy.js';
import { AccessControl } from '../../../../runtime/access/access-control.js';
import { compileResourceGlobs } from '../../../../runtime/access/resource-glob.js';
import { buildRouteTable, type BackendInput } from '../../../../runtime/routing/route-table.js';
import type { CallerContext } from '../../../../runtime/routing/caller.js';
import { parseConfigText } from '../../../../controller/config/config-loader.js';
import { ConfigError } from '../../../../schemas/errors.js';
import { configProblems } from '../../../helpers/config-problems.js';
import type { AuthorizationSpec } from '../../../../schemas/access-config.js';
import type { GatewayConfig } from '../../../../schemas/config.js';

/** The example policies. */
const EXAMPLE: AuthorizationSpec = {
  enabled: true,
  default_effect: 'deny',
  policies: [
    { effect: 'allow', roles: ['admin'], resources: ['*'] },
    { effect: 'deny', roles: ['*'], resources: ['tool:*_delete*'] },
    { effect: 'allow', roles: ['dev'], resources: ['tool:github_*', 'resource:file:///docs/*', 'prompt:*', 'server:memory', 'group:search'] },
  ],
};

const backend = (name: string, tools: string[], extra: Partial<BackendInput['catalog']> = {}): BackendInput => ({
  name,
  spec: {},
  catalog: { tools: tools.map((t) => ({ name: t, inputSchema: { type: 'object' } })), resources: [], resourceTemplates: [], prompts: [], ...extra },
});

const table = () =>
  buildRouteTable(
    [
      backend('github', ['create_issue', 'delete_repo']),
      backend('memory', ['read_graph', 'delete_entities']),
      backend('web', ['search']),
      backend('files', [], {
        resources: [
          { uri: 'file:///docs/a.md', name: 'a' },
          { uri: 'file:///secret/key', name: 'key' },
        ],
        resourceTemplates: [{ uriTemplate: 'file:///docs/{name}', name: 'docs' }],
        prompts: [{ name: 'review' }],
      }),
    ],
    { strategy: 'prefix', separator: '_' },
  );

const config = (authorization: AuthorizationSpec, groups: Record<string, string> = { web: 'search' }) =>
  ({
    authorization,
    backends: Object.fromEntries(['github', 'memory', 'web', 'files'].map((b) => [b, { type: 'stdio', command: 'x', group: groups[b] ?? 'default' }])),
  }) as unknown as Pick<GatewayConfig, 'authorization' | 'backends'>;

const caller = (roles: string[], transport: CallerContext['transport'] = 'streamable-http'): CallerContext => ({
  sessionId: 's',
  transport,
  roles: [...roles].sort(),
});

describe('AccessPolicy', () => {
  const policy = new AccessPolicy(EXAMPLE);

  it('takes the first policy that matches: the admin allow comes before the delete deny', () => {
    expect(policy.candidates(['admin'], ['tool:memory_delete_entities', 'server:memory']).otherwise).toEqual({
      allowed: true,
      policyIndex: 0,
      effect: 'allow',
    });
    expect(policy.candidates(['dev'], ['tool:memory_delete_entities', 'server:memory']).otherwise).toEqual({ allowed: false, policyIndex: 1, effect: 'deny' });
    expect(policy.candidates(['dev'], ['tool:memory_read_graph', 'server:memory']).otherwise).toEqual({ allowed: true, policyIndex: 2, effect: 'allow' });
  });

  it('`roles: ["*"]` matches a caller with no roles at all; anything else needs one of the roles', () => {
    expect(policy.candidates([], ['tool:x_delete_y']).otherwise).toMatchObject({ allowed: false, policyIndex: 1 });
    expect(policy.candidates([], ['tool:github_create_issue']).otherwise).toEqual({ allowed: false, policyIndex: null, effect: 'deny' });
    expect(policy.candidates(['ops'], ['tool:github_create_issue']).otherwise).toEqual({ allowed: false, policyIndex: null, effect: 'deny' });
  });

  it('falls back to default_effect', () => {
    const open = new AccessPolicy({ default_effect: 'allow', policies: [{ effect: 'deny', roles: ['*'], resources: ['server:secret'] }] });
    expect(open.candidates([], ['tool:anything']).otherwise).toEqual({ allowed: true, policyIndex: null, effect: 'allow' });
    expect(open.candidates([], ['tool:secret_x', 'server:secret']).otherwise).toEqual({ allowed: false, policyIndex: 0, effect: 'deny' });
  });
});

describe('resource globs', () => {
  it('`*` crosses slashes, and a `..` in a URI does not escape a deny', () => {
    const any = compileResourceGlobs(['*']);
    expect(any('resource:file:///a/b/c')).toBe(true);
    const secret = compileResourceGlobs(['resource:file:///secret/*']);
    expect(secret('resource:file:///secret/key')).toBe(true);
    expect(secret('resource:file:///secret/../secret/key')).toBe(true);
    expect(secret('resource:file:///public/key')).toBe(false);
  });

  it('is exact about kinds and case', () => {
    const tools = compileResourceGlobs(['tool:github_*']);
    expect(tools('tool:github_create_issue')).toBe(true);
    expect(tools('prompt:github_create_issue')).toBe(false);
    expect(tools('tool:GitHub_create_issue')).toBe(false);
  });
});

describe('AccessControl', () => {
  it('shows each role set only what it may use, and the same arrays again (cached per route table and role set)', () => {
    const access = new AccessControl(config(EXAMPLE));
    const routes = table();
    const dev = access.visible(routes, caller(['dev']));
    expect(dev.tools.map((t) => t.name)).toEqual(['github_create_issue', 'memory_read_graph', 'web_search']);
    expect(dev.resources.map((r) => r.uri)).toEqual(['file:///docs/a.md']);
    expect(dev.resourceTemplates.map((t) => t.uriTemplate)).toEqual(['file:///docs/{name}']);
    expect(dev.prompts.map((p) => p.name)).toEqual(['files_review']);
    const nobody = access.visible(routes, caller([]));
    expect(nobody.tools).toEqual([]);
    expect(nobody.prompts).toEqual([]);
    // Cached: the very same arrays, so their JSON is built once.
    expect(access.visible(routes, caller(['dev'])).tools).toBe(dev.tools);
    // An admin sees everything: the unfiltered arrays themselves.
    expect(access.visible(routes, caller(['admin'])).tools).toBe(routes.lists.tools);
  });

  it('with authorization off, or for the management caller, filters nothing and allows everything', () => {
    const routes = table();
    const off = new AccessControl(config({ ...EXAMPLE, enabled: false }));
    expect(off.visible(routes, caller([])).tools).toBe(routes.lists.tools);
    expect(off.check(caller([]), 'tool', 'github_delete_repo', 'github').allowed).toBe(true);
    const on = new AccessControl(config(EXAMPLE));
    expect(on.visible(routes, caller([], 'management')).tools).toBe(routes.lists.tools);
    expect(on.check(caller([], 'management'), 'tool', 'github_delete_repo', 'github').allowed).toBe(true);
    expect(on.check(caller([]), 'tool', 'github_delete_repo', 'github').allowed).toBe(false);
    // A person signed in to the management API with their own identity calls as that identity.
    const person = { ...caller(['dev'], 'management'), userId: 'alice' };
    expect(on.check(person, 'tool', 'github_delete_repo', 'github').allowed).toBe(false);
    expect(on.check(person, 'tool', 'github_create_issue', 'github').allowed).toBe(true);
  });

  it('judges a capability by its backend and its group too', () => {
    const access = new AccessControl(config(EXAMPLE));
    expect(access.check(caller(['dev']), 'tool', 'web_search', 'web')).toEqual({ allowed: true, policyIndex: 2, effect: 'allow' });
    const regrouped = new AccessControl(config(EXAMPLE, { web: 'other' }));
    expect(regrouped.check(caller(['dev']), 'tool', 'web_search', 'web').allowed).toBe(false);
  });

  it('a new config replaces the policies (and says so); the same config changes nothing', () => {
    const access = new AccessControl(config(EXAMPLE));
    const routes = table();
    const before = access.visible(routes, caller(['dev'])).tools;
    expect(access.configure(config(EXAMPLE))).toBe(false);
    expect(access.visible(routes, caller(['dev'])).tools).toBe(before);
    const stricter = { ...EXAMPLE, policies: EXAMPLE.policies.slice(0, 2) };
    expect(access.configure(config(stricter))).toBe(true);
    expect(access.visible(routes, caller(['dev'])).tools).toEqual([]);
  });

  it('explains a verdict like a call: a served tool with its server and group, any other name as it is', () => {
    const access = new AccessControl(config(EXAMPLE));
    const routes = table();
    expect(access.explain(['dev'], 'tool:memory_read_graph', routes)).toMatchObject({ allowed: true, policyIndex: 2, effect: 'allow' });
    expect(access.explain(['dev'], 'tool:github_delete_repo', routes)).toMatchObject({ allowed: false, policyIndex: 1, effect: 'deny' });
    expect(access.explain(['dev'], 'tool:github_not_served', routes)).toMatchObject({ allowed: true, policyIndex: 2, effect: 'allow' });
    expect(access.explain(['ops'], 'group:search', routes)).toMatchObject({ allowed: false, policyIndex: null, effect: 'deny' });
    expect(access.explain(['dev'], 'resource:file:///docs/a.md', routes)).toMatchObject({ allowed: true });
    expect(access.explain(['dev'], 'resource:file:///secret/key', routes)).toMatchObject({ allowed: false, policyIndex: null });
  });
});

describe('config: incoming_auth and authorization', () => {
  // Client authentication needs a management token (controller/config/management-checks.ts).
  const MGMT_ENV = { GATEWAY_MGMT_TOKEN: 'test-management-token-0123456789abcdef' };
  const problems = configProblems;

  it('defaults to anonymous and authorization off', () => {
    const cfg = parseConfigText('{}', { env: {} });
    expect(cfg.incoming_auth).toEqual({ type: 'anonymous' });
    expect(cfg.authorization).toEqual({ enabled: false, default_effect: 'deny', policies: [] });
  });

  it('says which keys a type needs and which belong to another type', () => {
    expect(problems('incoming_auth: { type: jwt, issuer: "https://idp.example.com" }', MGMT_ENV)).toEqual([
      'incoming_auth.jwks_uri: is required for type `jwt`',
      'incoming_auth.audience: is required for type `jwt`',
    ]);
    expect(problems('incoming_auth: { type: oidc, issuer: "https://idp", audience: "http://gw/mcp", jwks_uri: "https://idp/jwks" }', MGMT_ENV)).toEqual([
      'incoming_auth.jwks_uri: is read only by type jwt (the type is `oidc`)',
    ]);
    expect(problems('incoming_auth: { type: local }', MGMT_ENV)).toEqual(['incoming_auth.tokens: is required for type `local`']);
  });

  it('refuses HS256 and none, short tokens, duplicate tokens and the management token', () => {
    expect(
      problems('incoming_auth: { type: jwt, issuer: "https://i", jwks_uri: "https://i/j", audience: "http://g/mcp", algorithms: [HS256] }', MGMT_ENV)[0],
    ).toMatch(/^incoming_auth\.algorithms\.0: /);
    const local = (tokens: string) =>
      `incoming_auth: { type: local, tokens: ${tokens} }\nserver: { management: { token: "management-token-0123456789abcdef012345" } }`;
    expect(problems(local('[{ name: a, token: short }]'))).toEqual(['incoming_auth.tokens.0.token: must NOT have fewer than 16 characters']);
    expect(problems(local('[{ name: a, token: "0123456789abcdef0" }, { name: a, token: "0123456789abcdef0" }]'))).toEqual([
      "incoming_auth.tokens.1.name: 'a' is already the name of tokens.0",
      'incoming_auth.tokens.1.token: is the same token as tokens.0',
    ]);
    expect(problems(local('[{ name: a, token: "management-token-0123456789abcdef012345" }]'))).toEqual([
      'incoming_auth.tokens.0.token: is the management token; MCP clients and the management API need separate tokens',
    ]);
    expect(
      problems(local('[{ name: a, token: "env-management-token-0123456789abcdef" }]'), { GATEWAY_MGMT_TOKEN: 'env-management-token-0123456789abcdef' }),
    ).toEqual(['incoming_auth.tokens.0.token: is the management token; MCP clients and the management API need separate tokens']);
  });

  it('says what a policy pattern must look like', () => {
    expect(problems('authorization: { enabled: true, policies: [{ effect: allow, roles: [dev], resources: ["github_*"] }] }', MGMT_ENV)).toEqual([
      'authorization.policies.0.resources.0: must start with one of `tool:`, `resource:`, `prompt:`, `server:`, `group:` or with `*`',
    ]);
  });

  it('refuses a `when` that does not compile, with its place in the file and in the expression', () => {
    const yaml = [
      'authorization:',
      '  enabled: true',
      '  policies:',
      '    - { effect: allow, roles: [dev], resources: ["tool:*"], when: "tool.annotations.readOnlyHint" }',
      '    - effect: deny',
      '      roles: ["*"]',
      '      resources: ["tool:*"]',
      '      when: "arguments.path.startsWith(\'/etc\') &&"',
      '    - { effect: allow, roles: [ops], resources: ["*"], when: "caller.user == \'x\'" }',
    ].join('\n');
    let err: ConfigError | undefined;
    try {
      parseConfigText(yaml, { env: MGMT_ENV });
    } catch (e) {
      err = e as ConfigError;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect(err!.problems).toEqual([
      {
        path: 'authorization.policies.1.when',
        message: expect.stringMatching(/^does not compile: column 3\d of the expression: syntax error: /),
        line: 8,
        column: 7,
      },
      {
        path: 'authorization.policies.2.when',
        message: 'does not compile: column 7 of the expression: has no field `user` (it has id, roles, claims)',
        line: 9,
        column: 56,
      },
    ]);
    expect(err!.message).toContain('authorization.policies.2.when (line 9, column 56): does not compile: column 7 of the expression');
  });
});
