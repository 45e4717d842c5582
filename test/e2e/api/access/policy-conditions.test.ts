/**
 * Policies on what a call does (`authorization.policies[].when`, CEL), end
 * to end on a real gateway with a real backend whose tools carry
 * annotations: POST /manage/v1/authorization/check and `gateway-client authz
 * check` allow and deny by argument value, by annotation, by claim and by
 * request, naming the policy that decided and why; a tools/list over /mcp
 * shows a tool that some arguments could be allowed for, and hides what no
 * call could be; real calls over /mcp, from a 2025-11-25 session and a
 * 2026-07-28 client, are decided by their arguments and the tool's
 * annotations exactly as the check endpoint says; a `when` that does not compile refuses the config with its
 * place, and a reload with one keeps the running policies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { stdioFixture } from '../../../fixtures/fixture-backend.js';
import { CLIENT_BIN, GATEWAY_BIN, runBin } from '../../../helpers/cli-run.js';

const DEV = 'dev-token-0123456789abcdef';
const MGMT = 'management-token-0123456789abcdef';

const POLICIES = [
  { effect: 'deny', roles: ['*'], resources: ['tool:kit_*'], when: "has(arguments.label) && arguments.label.startsWith('secret')" },
  { effect: 'allow', roles: ['dev'], resources: ['tool:kit_*'], when: 'tool.annotations.readOnlyHint' },
  { effect: 'allow', roles: ['dev'], resources: ['tool:kit_counter_write'], when: "arguments.label == 'ok'" },
  { effect: 'allow', roles: ['ops'], resources: ['*'], when: "caller.claims.org == 'acme' && caller.id.endsWith('@acme.example')" },
  { effect: 'allow', roles: ['auditor'], resources: ['tool:*'], when: "request.client_name == 'inspector' && request.revision >= '2025-06-18'" },
];

const config = (policies: unknown[]) => ({
  server: { host: '127.0.0.1', port: 0, management: { token: MGMT } },
  feature_flags: { hot_reload: true },
  backends: { kit: stdioFixture(['--name', 'kit', '--guardrail-tools']) },
  incoming_auth: { type: 'local', tokens: [{ name: 'dev-bot', token: DEV, roles: ['dev'] }] },
  authorization: { enabled: true, default_effect: 'deny', policies },
});

describe('authorization.policies[].when', () => {
  let h: Harness;
  const check = async (body: Record<string, unknown>) => {
    const res = await fetch(`${h.url}/manage/v1/authorization/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${MGMT}` },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    return res.json();
  };
  const client = (...args: string[]) => runBin(CLIENT_BIN, ['-s', h.url, '-t', MGMT, '--no-color', ...args]);

  beforeAll(async () => {
    h = await startGateway(config(POLICIES));
  });
  afterAll(async () => {
    await h?.close();
  });

  it('the check endpoint allows and denies by argument value', async () => {
    const write = (args?: Record<string, unknown>) => check({ roles: ['dev'], resource: 'tool:kit_counter_write', ...(args ? { arguments: args } : {}) });
    expect(await write({ label: 'ok' })).toEqual({
      allowed: true,
      policy_index: 2,
      effect: 'allow',
      reason: 'policy 2 (allow): its `when` is true',
      when: "arguments.label == 'ok'",
      conditions: [
        { policy_index: 0, outcome: 'false' },
        { policy_index: 1, outcome: 'false' },
        { policy_index: 2, outcome: 'true' },
      ],
      policy: POLICIES[2],
    });
    expect(await write({ label: 'nope' })).toMatchObject({
      allowed: false,
      policy_index: null,
      reason: 'no policy matched; 3 policy `when` did not apply: default_effect deny',
    });
    expect(await write({ label: 'secret-plans' })).toMatchObject({ allowed: false, policy_index: 0, effect: 'deny', when: POLICIES[0].when });
    // No label: policy 2's `when` cannot be evaluated, and a failing `when` lets nothing through.
    const missing = await write();
    expect(missing).toMatchObject({ allowed: false, policy_index: null });
    expect(missing.conditions[2]).toEqual({ policy_index: 2, outcome: 'error', error: expect.stringContaining('label') });
  });

  it('the check endpoint allows and denies by annotation, read from the served tool', async () => {
    expect(await check({ roles: ['dev'], resource: 'tool:kit_counter_read' })).toMatchObject({
      allowed: true,
      policy_index: 1,
      when: 'tool.annotations.readOnlyHint',
    });
    expect(await check({ roles: ['dev'], resource: 'tool:kit_flaky_write', arguments: { key: 'k' } })).toMatchObject({ allowed: false, policy_index: null });
    // A deny by argument comes first, even on a read-only tool.
    expect(await check({ roles: ['dev'], resource: 'tool:kit_counter_read', arguments: { label: 'secret' } })).toMatchObject({
      allowed: false,
      policy_index: 0,
    });
  });

  it('the check endpoint decides by claims, caller id and request facts', async () => {
    const ops = (userId: string, org: string) => check({ roles: ['ops'], resource: 'tool:kit_attempts', user_id: userId, claims: { org } });
    expect(await ops('bob@acme.example', 'acme')).toMatchObject({ allowed: true, policy_index: 3 });
    expect(await ops('bob@acme.example', 'evil')).toMatchObject({ allowed: false, policy_index: null });
    expect(await ops('bob@evil.example', 'acme')).toMatchObject({ allowed: false, policy_index: null });
    const auditor = (request: Record<string, string>) => check({ roles: ['auditor'], resource: 'tool:kit_attempts', request });
    expect(await auditor({ client_name: 'inspector', revision: '2025-11-25' })).toMatchObject({ allowed: true, policy_index: 4 });
    expect(await auditor({ client_name: 'inspector', revision: '2025-03-26' })).toMatchObject({ allowed: false });
    expect(await auditor({ client_name: 'other', revision: '2025-11-25' })).toMatchObject({ allowed: false });
  });

  it('gateway-client authz check takes arguments, claims and request facts, and says which rule decided and why', async () => {
    const allowed = await client('-o', 'table', 'authz', 'check', '--role', 'dev', '--arg', 'label=ok', 'tool:kit_counter_write');
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toBe(
      [
        'allowed: policy 2 (allow): its `when` is true',
        "  when: arguments.label == 'ok'",
        '  policy 0 when → false',
        '  policy 1 when → false',
        '  policy 2 when → true',
        '',
      ].join('\n'),
    );
    const denied = await client('-o', 'table', 'authz', 'check', '--role', 'dev', '--json', '{"label":"secret-x"}', 'tool:kit_counter_read');
    expect(denied.code).toBe(1);
    expect(denied.stdout.split('\n')[0]).toBe('denied: policy 0 (deny): its `when` is true');
    const missing = await client('-o', 'table', 'authz', 'check', '--role', 'dev', 'tool:kit_counter_write');
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/policy 2 when → error \(.*label.*\)/);
    const claims = await client('-o', 'json', 'authz', 'check', '--role', 'ops', '--user', 'bob@acme.example', '--claim', 'org=acme', 'tool:kit_attempts');
    expect(claims.code).toBe(0);
    expect(JSON.parse(claims.stdout)).toMatchObject({ allowed: true, policy_index: 3 });
    const request = await client(
      '-o',
      'json',
      'authz',
      'check',
      '--role',
      'auditor',
      '--client-name',
      'inspector',
      '--revision',
      '2025-11-25',
      'tool:kit_attempts',
    );
    expect(request.code).toBe(0);
    expect(JSON.parse(request.stdout)).toMatchObject({ allowed: true, policy_index: 4 });
  });

  it('tools/list over /mcp shows a tool some arguments could be allowed for, and hides what no call could use', async () => {
    const mcp = new Client({ name: 'when-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${DEV}` } } }));
    const names = (await mcp.listTools()).tools.map((t) => t.name).sort();
    // Read-only by annotation (policy 1), and counter_write for some label (policy 2 reads the arguments).
    expect(names).toEqual(['kit_counter_error', 'kit_counter_read', 'kit_counter_write', 'kit_flaky_read']);
    await mcp.close();
  });

  describe.each([
    ['2025-11-25 session (1.x client)', '2025-11-25'],
    ['2026-07-28 request (v2 client)', '2026-07-28'],
  ])('real calls over /mcp: %s', (_label, revision) => {
    type Call = (name: string, args: Record<string, unknown>) => Promise<{ content: unknown; isError?: boolean }>;
    let call: Call;
    let close: () => Promise<void>;
    beforeAll(async () => {
      const requestInit = { headers: { authorization: `Bearer ${DEV}` } };
      if (revision === '2025-11-25') {
        const mcp = new Client({ name: 'when-calls', version: '1.0.0' });
        await mcp.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit }));
        call = (name, args) => mcp.callTool({ name, arguments: args }) as ReturnType<Call>;
        close = () => mcp.close();
      } else {
        const mcp = new V2Client({ name: 'when-calls', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
        await mcp.connect(new V2Transport(new URL(`${h.url}/mcp`), { requestInit }));
        call = (name, args) => mcp.callTool({ name, arguments: args }) as ReturnType<Call>;
        close = () => mcp.close();
      }
    });
    afterAll(async () => {
      await close?.();
    });
    const text = (r: { content: unknown }) => (r.content as Array<{ text?: string }>)[0]?.text ?? '';

    it('the arguments decide: label ok is allowed, another label is refused as an unknown tool', async () => {
      expect(text(await call('kit_counter_write', { label: 'ok' }))).toMatch(/^ok#\d+$/);
      await expect(call('kit_counter_write', { label: 'nope' })).rejects.toThrow(/kit_counter_write/);
    });

    it('a deny on arguments holds against a tool an annotation allows (no walking around a `when`)', async () => {
      expect(text(await call('kit_counter_read', { label: 'fine' }))).toMatch(/^fine#\d+$/);
      await expect(call('kit_counter_read', { label: 'secret-plans' })).rejects.toThrow(/kit_counter_read/);
    });
  });

  it('a `when` that does not compile refuses the config with its place; a reload with one keeps the running policies', async () => {
    const bad = [...POLICIES.slice(0, 2), { effect: 'allow', roles: ['dev'], resources: ['*'], when: "arguments.label = 'x'" }];
    h.writeConfig(config(bad));
    const validate = await runBin(GATEWAY_BIN, ['config', 'validate', h.configPath]);
    expect(validate.code).not.toBe(0);
    expect(validate.stdout + validate.stderr).toMatch(
      /authorization\.policies\.2\.when \(line \d+, column \d+\): does not compile: column 17 of the expression: syntax error/,
    );
    const reload = await fetch(`${h.url}/manage/v1/reload`, { method: 'POST', headers: { authorization: `Bearer ${MGMT}` } });
    expect(reload.status).toBe(200);
    const answer = await reload.json();
    expect(answer.reloaded).toBe(false);
    expect(answer.errors).toEqual([
      expect.objectContaining({
        path: 'authorization.policies.2.when',
        message: expect.stringMatching(/^does not compile: column 17 of the expression: syntax error/),
      }),
    ]);
    expect(await check({ roles: ['dev'], resource: 'tool:kit_counter_write', arguments: { label: 'ok' } })).toMatchObject({ allowed: true, policy_index: 2 });
    h.writeConfig(config(POLICIES));
  });
});
