/**
 * A policy's `when` as a unit: compiled once (syntax and type errors with
 * their column), evaluated over the facts (arguments by value, annotations
 * with their MCP defaults, claims, request), and the decision rules around
 * it: first match wins, a failing `when` never lets a call through, and a
 * list shows a tool when some arguments could be allowed.
 */
import { describe, expect, it } from 'vitest';
import { compileCondition, ConditionCompileError } from '../../../../runtime/access/policy-condition.js';
import { factBindings, type DecisionSubject } from '../../../../runtime/access/condition-facts.js';
import { AccessPolicy } from '../../../../runtime/access/access-policy.js';
import { AccessControl } from '../../../../runtime/access/access-control.js';
import { buildRouteTable } from '../../../../runtime/routing/route-table.js';
import type { CallerContext } from '../../../../runtime/routing/caller.js';
import type { AuthorizationSpec, CallFacts } from '../../../../schemas/access-config.js';
import type { GatewayConfig } from '../../../../schemas/config.js';

const subject = (facts: CallFacts = {}, extra: Partial<DecisionSubject> = {}): DecisionSubject => ({
  userId: 'alice',
  roles: ['dev'],
  kind: 'tool',
  name: 'files_write',
  backend: 'files',
  facts,
  ...extra,
});

const evaluate = (source: string, facts?: CallFacts, extra?: Partial<DecisionSubject>) => compileCondition(source).test(factBindings(subject(facts, extra)));

function compileError(source: string): ConditionCompileError {
  try {
    compileCondition(source);
  } catch (err) {
    if (err instanceof ConditionCompileError) return err;
    throw err;
  }
  throw new Error(`compiled: ${source}`);
}

describe('compiling a `when`', () => {
  it('a syntax error says where', () => {
    const err = compileError("arguments.path.startsWith('/tmp') &&");
    expect(err.message).toMatch(/^column \d+ of the expression: syntax error/);
    expect(err.column).toBeGreaterThan(30);
  });

  it('a multi-line expression names the line too', () => {
    const err = compileError("tool.name == 'x' &&\n  caller.nme == 'alice'");
    expect(err.message).toBe('line 2, column 9 of the expression: has no field `nme` (it has id, roles, claims)');
  });

  it.each([
    ["user.id == 'alice'", 'column 1 of the expression: unknown name `user` (the facts are caller, tool, arguments, request)'],
    [
      'tool.annotations.readOnly == true',
      'column 17 of the expression: has no field `readOnly` (it has title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint)',
    ],
    ['tool.name', 'column 5 of the expression: must be a bool (true: the policy applies), not a string'],
    ['tool.name == 3', 'column 11 of the expression: compares a string with an int: never equal'],
    ['tool.name.startsWith(3)', 'column 10 of the expression: no `startsWith` on a string takes (an int)'],
    ['frobnicate(tool.name)', 'column 1 of the expression: unknown function `frobnicate`'],
    ['tool.annotations.readOnlyHint || tool.name', 'column 38 of the expression: `||` needs bools, not a string'],
    ['has(request.client)', 'column 1 of the expression: has no field `client` (it has method, revision, client_name, client_version)'],
  ])('refuses %s', (source, message) => {
    expect(compileError(source).message).toBe(message);
  });

  it('what is only known at the call passes: arguments, claims, macros, string extensions', () => {
    for (const source of [
      "arguments.path.startsWith('/tmp/')",
      'has(arguments.force) && arguments.force == true',
      "caller.claims.org == 'acme' && 'admin' in caller.roles",
      "caller.roles.exists(r, r.startsWith('ops-'))",
      "size(arguments) <= 3 && arguments.repo.lowerAscii() in ['acme/site', 'acme/docs']",
      'arguments.count > 10 ? false : true',
      "request.revision >= '2025-11-25' && request.client_name != 'bad-client'",
    ]) {
      expect(() => compileCondition(source), source).not.toThrow();
    }
  });

  it('records which facts an expression reads', () => {
    expect([...compileCondition('arguments.x == 1 && tool.annotations.readOnlyHint').reads].sort()).toEqual(['arguments', 'tool']);
    expect([...compileCondition("caller.roles.exists(arguments, arguments == 'x')").reads]).toEqual(['caller']);
  });
});

describe('evaluating a `when`', () => {
  it('by argument value', () => {
    const when = "arguments.path.startsWith('/tmp/')";
    expect(evaluate(when, { arguments: { path: '/tmp/a' } })).toBe(true);
    expect(evaluate(when, { arguments: { path: '/etc/passwd' } })).toBe(false);
    expect(evaluate('arguments.count <= 3', { arguments: { count: 3 } })).toBe(true);
    expect(evaluate('arguments.count <= 3', { arguments: { count: 4 } })).toBe(false);
    expect(evaluate('arguments.count == 3', { arguments: { count: 3 } })).toBe(true);
  });

  it('by annotation, absent ones taking the MCP defaults', () => {
    expect(evaluate('tool.annotations.readOnlyHint', { annotations: { readOnlyHint: true } })).toBe(true);
    expect(evaluate('tool.annotations.readOnlyHint', {})).toBe(false);
    expect(evaluate('tool.annotations.destructiveHint', {})).toBe(true);
    expect(evaluate('tool.annotations.destructiveHint', { annotations: { destructiveHint: false } })).toBe(false);
    expect(evaluate('tool.annotations.openWorldHint && !tool.annotations.idempotentHint', {})).toBe(true);
  });

  it('by caller, claims and request', () => {
    expect(evaluate("caller.id == 'alice' && 'dev' in caller.roles")).toBe(true);
    expect(evaluate("caller.claims.org == 'acme'", { claims: { org: 'acme' } })).toBe(true);
    expect(evaluate("caller.claims.org == 'acme'", { claims: { org: 'other' } })).toBe(false);
    expect(evaluate("request.method == 'tools/call' && request.revision == ''")).toBe(true);
    expect(evaluate("request.method == 'prompts/get'", {}, { kind: 'prompt' })).toBe(true);
    expect(evaluate("request.client_name == 'claude'", { request: { clientName: 'claude' } })).toBe(true);
    expect(evaluate("tool.name == 'files_write' && tool.backend == 'files' && tool.kind == 'tool'")).toBe(true);
  });

  it('a missing argument or a value of another type is an error, not a bool', () => {
    expect(evaluate("arguments.path.startsWith('/tmp')", { arguments: {} })).toEqual({ error: expect.stringContaining('path') });
    expect(evaluate('arguments.flag', { arguments: { flag: 'yes' } })).toEqual({ error: expect.stringContaining('not a bool') });
    expect(evaluate("has(arguments.path) && arguments.path.startsWith('/tmp')", { arguments: {} })).toBe(false);
  });
});

const POLICIES: AuthorizationSpec = {
  enabled: true,
  default_effect: 'deny',
  policies: [
    { effect: 'deny', roles: ['*'], resources: ['tool:files_*'], when: "has(arguments.path) && arguments.path.startsWith('/etc/')" },
    { effect: 'allow', roles: ['dev'], resources: ['tool:files_*'], when: 'tool.annotations.readOnlyHint' },
    { effect: 'allow', roles: ['dev'], resources: ['tool:files_write'], when: "arguments.path.startsWith('/tmp/')" },
    { effect: 'allow', roles: ['admin'], resources: ['*'] },
  ],
};

const facts =
  (path?: string): (() => ReturnType<typeof factBindings>) =>
  () =>
    factBindings(subject({ arguments: path === undefined ? {} : { path } }, { name: 'files_write' }));

describe('deciding with `when`', () => {
  const policy = new AccessPolicy(POLICIES);
  const names = ['tool:files_write', 'server:files'];

  it('caches what does not depend on the call: the conditional policies, then the first unconditional match', () => {
    expect(policy.candidates(['dev'], names)).toEqual({ conditional: [0, 1, 2], otherwise: { allowed: false, policyIndex: null, effect: 'deny' } });
    expect(policy.candidates(['admin'], names)).toEqual({ conditional: [0], otherwise: { allowed: true, policyIndex: 3, effect: 'allow' } });
  });

  it('first match wins, by argument value', () => {
    const dev = policy.candidates(['dev'], names);
    expect(policy.settle(dev, facts('/tmp/x'))).toEqual({ allowed: true, policyIndex: 2, effect: 'allow' });
    expect(policy.settle(dev, facts('/home/x'))).toEqual({ allowed: false, policyIndex: null, effect: 'deny' });
    expect(policy.settle(dev, facts('/etc/passwd'))).toEqual({ allowed: false, policyIndex: 0, effect: 'deny' });
    const admin = policy.candidates(['admin'], names);
    expect(policy.settle(admin, facts('/etc/passwd'))).toMatchObject({ allowed: false, policyIndex: 0 });
    expect(policy.settle(admin, facts('/home/x'))).toMatchObject({ allowed: true, policyIndex: 3 });
  });

  it('a failing `when` never lets a call through: a deny applies, an allow does not', () => {
    const failing = new AccessPolicy({
      default_effect: 'allow',
      policies: [{ effect: 'deny', roles: ['*'], resources: ['*'], when: "arguments.path.startsWith('/etc/')" }],
    });
    const steps: Parameters<AccessPolicy['settle']>[3] = [];
    expect(failing.settle(failing.candidates([], names), facts(), undefined, steps)).toMatchObject({ allowed: false, policyIndex: 0 });
    expect(steps).toEqual([{ policyIndex: 0, outcome: 'error', error: expect.any(String) }]);
    const dev = policy.candidates(['dev'], names);
    // Policy 2 fails on the missing path: no allow, so the default deny.
    expect(policy.settle(dev, facts())).toEqual({ allowed: false, policyIndex: null, effect: 'deny' });
  });

  it('a list cannot know the arguments: an allow reading them shows the tool, a deny reading them does not hide it', () => {
    const dev = policy.candidates(['dev'], names);
    const steps: Parameters<AccessPolicy['settle']>[3] = [];
    expect(policy.settle(dev, facts(), new Set(['arguments']), steps)).toMatchObject({ allowed: true, policyIndex: 2 });
    expect(steps.map((s) => s.outcome)).toEqual(['unknown', 'false', 'unknown']);
  });
});

const toolTable = () =>
  buildRouteTable(
    [
      {
        name: 'files',
        spec: {},
        catalog: {
          tools: [
            { name: 'read', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
            { name: 'write', inputSchema: { type: 'object' } },
            { name: 'delete', inputSchema: { type: 'object' }, annotations: { destructiveHint: true } },
          ],
          resources: [],
          resourceTemplates: [],
          prompts: [],
        },
      },
    ],
    { strategy: 'prefix', separator: '_' },
  );

const control = (authorization: AuthorizationSpec) =>
  new AccessControl({ authorization, backends: { files: { type: 'stdio', command: 'x', group: 'default' } } } as unknown as Pick<
    GatewayConfig,
    'authorization' | 'backends'
  >);

const caller = (roles: string[], userId = 'alice'): CallerContext => ({ sessionId: 's', transport: 'streamable-http', roles, userId });

describe('AccessControl with `when`', () => {
  it('lists: read-only tools by annotation, and the write tool that some path could be allowed for', () => {
    const access = control(POLICIES);
    const names = access.visible(toolTable(), caller(['dev'])).tools.map((t) => t.name);
    expect(names).toEqual(['files_read', 'files_write']);
  });

  it('calls: decided with the real arguments and the annotations passed by the caller of check', () => {
    const access = control(POLICIES);
    const dev = caller(['dev']);
    expect(access.check(dev, 'tool', 'files_write', 'files', { arguments: { path: '/tmp/a' } }).allowed).toBe(true);
    expect(access.check(dev, 'tool', 'files_write', 'files', { arguments: { path: '/home/a' } }).allowed).toBe(false);
    expect(access.check(dev, 'tool', 'files_write', 'files', { arguments: { path: '/etc/a' } })).toMatchObject({ allowed: false, policyIndex: 0 });
    expect(access.check(dev, 'tool', 'files_read', 'files', { arguments: {}, annotations: { readOnlyHint: true } })).toMatchObject({ policyIndex: 1 });
    // Without the facts, a `when` sees no arguments and no annotations: nothing here is allowed.
    expect(access.check(dev, 'tool', 'files_read', 'files').allowed).toBe(false);
  });

  it('a list that depends on claims is kept per claims, not per role set only', () => {
    const access = control({
      enabled: true,
      default_effect: 'deny',
      policies: [{ effect: 'allow', roles: ['*'], resources: ['tool:files_*'], when: "caller.claims.org == 'acme'" }],
    });
    const routes = toolTable();
    expect(access.visible(routes, caller([]), { claims: { org: 'acme' } }).tools).toHaveLength(3);
    expect(access.visible(routes, caller([]), { claims: { org: 'evil' } }).tools).toHaveLength(0);
    expect(access.visible(routes, caller([]), { claims: { org: 'acme' } }).tools).toHaveLength(3);
  });

  it('explains: the policy that decided, its `when`, and each `when` on the way', () => {
    const access = control(POLICIES);
    const routes = toolTable();
    const allowed = access.explain(['dev'], 'tool:files_write', routes, { arguments: { path: '/tmp/x' } });
    expect(allowed).toMatchObject({ allowed: true, policyIndex: 2, when: "arguments.path.startsWith('/tmp/')" });
    expect(allowed.conditions.map((c) => [c.policyIndex, c.outcome])).toEqual([
      [0, 'false'],
      [1, 'false'],
      [2, 'true'],
    ]);
    expect(allowed.reason).toBe('policy 2 (allow): its `when` is true');
    // The route table's annotations of files_read are seen without being given.
    expect(access.explain(['dev'], 'tool:files_read', routes, {})).toMatchObject({ allowed: true, policyIndex: 1 });
    const denied = access.explain(['dev'], 'tool:files_write', routes, {});
    expect(denied).toMatchObject({ allowed: false, policyIndex: null });
    expect(denied.reason).toBe('no policy matched; 3 policy `when` did not apply: default_effect deny');
  });
});
