/**
 * Client authentication with `local` tokens and role-based policies, end to
 * end: a real gateway, real stdio backends, real SDK clients over /mcp and
 * /sse, raw HTTP where the wire itself matters.
 *
 *  - every method of /mcp, /sse and /messages without (good) credentials:
 *    401 with a challenge naming the protected resource metadata;
 *  - the metadata itself (RFC 9728);
 *  - two roles see two tool lists; a denied call answers exactly as an
 *    unknown tool does and is audited as denied, with who asked;
 *  - a session belongs to the identity that created it;
 *  - GET /sessions shows each session's user; tokens appear in no log or record;
 *  - a reload that changes the policies applies to the next request.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { stdioFixture } from '../../../fixtures/fixture-backend.js';
import { waitFor } from '../../../helpers/wait.js';
import { CLIENT_BIN, runBin } from '../../../helpers/cli-run.js';
import { copySkillFixtures } from '../../../helpers/skill-fixtures.js';

const DEV = 'dev-token-0123456789abcdef';
const ADMIN = 'admin-token-0123456789abcdef';
const NOBODY = 'nobody-token-0123456789abcdef';
const MGMT = 'management-token-0123456789abcdef012345';

const POLICIES = [
  { effect: 'allow', roles: ['admin'], resources: ['*'] },
  { effect: 'deny', roles: ['*'], resources: ['tool:*_delete*'] },
  { effect: 'allow', roles: ['dev'], resources: ['tool:github_*', 'prompt:*', 'group:kb'] },
];

const config = (policies: unknown[]) => ({
  server: { host: '127.0.0.1', port: 0, management: { token: MGMT } },
  feature_flags: { hot_reload: true },
  backends: {
    github: stdioFixture(['--name', 'github', '--tools', 'create_issue,delete_repo']),
    memory: { ...stdioFixture(['--name', 'memory', '--tools', 'read_graph,delete_entities']), group: 'kb' },
  },
  incoming_auth: {
    type: 'local',
    tokens: [
      { name: 'dev-bot', token: DEV, roles: ['dev'] },
      { name: 'admin-bot', token: ADMIN, roles: ['admin'] },
      { name: 'nobody-bot', token: NOBODY },
    ],
  },
  authorization: { enabled: true, default_effect: 'deny', policies },
});

interface Connected {
  client: Client;
  sessionId: () => string;
}

async function connectAs(h: Harness, token: string | undefined, transport: 'streamable-http' | 'sse' = 'streamable-http'): Promise<Connected> {
  const requestInit: RequestInit = { headers: token ? { authorization: `Bearer ${token}` } : {} };
  const client = new Client({ name: `test-${transport}`, version: '1.0.0' });
  if (transport === 'sse') {
    const t = new SSEClientTransport(new URL(`${h.url}/sse`), { requestInit });
    await client.connect(t);
    return { client, sessionId: () => '' };
  }
  const t = new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit });
  await client.connect(t);
  return { client, sessionId: () => t.sessionId ?? '' };
}

const toolNames = async (c: Client) => (await c.listTools()).tools.map((t) => t.name).sort();

/** What a failed call answered: the JSON-RPC error. */
async function callError(c: Client, name: string): Promise<McpError> {
  try {
    await c.callTool({ name, arguments: {} });
  } catch (err) {
    if (err instanceof McpError) return err;
    throw err;
  }
  throw new Error(`${name} did not fail`);
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

function post(url: string, headers: Record<string, string>, body: unknown = INITIALIZE): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
}

describe('incoming_auth local, with policies', () => {
  let h: Harness;
  const auditLines = () =>
    readFileSync(join(h.dir, 'audit.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));

  beforeAll(async () => {
    h = await startGateway(config(POLICIES));
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('refuses every method of /mcp, /sse and /messages without credentials: 401, a challenge, a JSON-RPC body', async () => {
    const mcp = `${h.url}/mcp`;
    const metadata = (endpoint: string) => `Bearer resource_metadata="${h.url}/.well-known/oauth-protected-resource${endpoint}"`;
    const attempts: Array<[string, Promise<Response>, string]> = [
      ['POST /mcp', post(mcp, {}), '/mcp'],
      ['GET /mcp', fetch(mcp, { headers: { accept: 'text/event-stream', 'mcp-session-id': 'x' } }), '/mcp'],
      ['DELETE /mcp', fetch(mcp, { method: 'DELETE', headers: { 'mcp-session-id': 'x' } }), '/mcp'],
      ['PUT /mcp', fetch(mcp, { method: 'PUT' }), '/mcp'],
      ['GET /sse', fetch(`${h.url}/sse`, { headers: { accept: 'text/event-stream' } }), '/sse'],
      ['POST /messages', post(`${h.url}/messages?sessionId=x`, {}), '/sse'],
    ];
    for (const [what, pending, endpoint] of attempts) {
      const res = await pending;
      expect(res.status, what).toBe(401);
      expect(res.headers.get('www-authenticate'), what).toBe(metadata(endpoint));
      const body = await res.json();
      expect(body, what).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
      expect(body.error.message, what).toMatch(/^Unauthorized: a bearer token is required/);
    }
  });

  it('refuses a wrong token, another scheme and the management token as invalid', async () => {
    for (const authorization of [`Bearer ${DEV}x`, `Bearer ${MGMT}`, 'Bearer', `Basic ${Buffer.from('a:b').toString('base64')}`]) {
      const res = await post(`${h.url}/mcp`, { authorization });
      expect(res.status, authorization).toBe(401);
      const challenge = res.headers.get('www-authenticate') ?? '';
      expect(challenge, authorization).toContain(`resource_metadata="${h.url}/.well-known/oauth-protected-resource/mcp"`);
      // A bearer token that is not one of ours is invalid_token; no bearer token at all is a plain challenge.
      if (authorization.startsWith('Bearer ') && authorization !== 'Bearer') expect(challenge).toContain('error="invalid_token"');
      else expect(challenge).not.toContain('error=');
    }
    // The management token still opens the management API, and only that.
    expect((await fetch(`${h.url}/manage/v1/status`, { headers: { authorization: `Bearer ${MGMT}` } })).status).toBe(200);
  });

  it('publishes protected resource metadata (RFC 9728) at the root, /mcp and /sse forms, without a token', async () => {
    for (const [suffix, resource] of [
      ['/mcp', `${h.url}/mcp`],
      ['/sse', `${h.url}/sse`],
      ['', h.url],
    ]) {
      const res = await fetch(`${h.url}/.well-known/oauth-protected-resource${suffix}`);
      expect(res.status).toBe(200);
      // local tokens: no authorization server to name.
      expect(await res.json()).toEqual({ resource, bearer_methods_supported: ['header'], resource_name: 'mcp-gateway' });
    }
    expect((await fetch(`${h.url}/.well-known/oauth-protected-resource/other`)).status).toBe(404);
  });

  it('shows two roles two different tool lists, and a caller without roles nothing', async () => {
    const dev = await connectAs(h, DEV);
    const admin = await connectAs(h, ADMIN);
    const nobody = await connectAs(h, NOBODY);
    const all = await toolNames(admin.client);
    expect(all).toContain('github_delete_repo');
    expect(all).toContain('memory_delete_entities');
    const devTools = await toolNames(dev.client);
    // github_* and everything of group kb (memory), but no *_delete* for anyone but admin.
    expect(devTools).toEqual(all.filter((n) => !n.includes('_delete')));
    expect(devTools).toContain('memory_read_graph');
    expect(await toolNames(nobody.client)).toEqual([]);
    expect((await dev.client.listPrompts()).prompts.map((p) => p.name).sort()).toEqual(['github_greet', 'memory_greet']);
    expect((await nobody.client.listResources()).resources).toEqual([]);
    await Promise.all([dev, admin, nobody].map((c) => c.client.close()));
  });

  it('answers a denied call exactly as an unknown tool, and audits it as denied with who asked', async () => {
    const dev = await connectAs(h, DEV);
    const denied = await callError(dev.client, 'github_delete_repo');
    const unknown = await callError(dev.client, 'github_no_such_tool');
    expect(denied.code).toBe(unknown.code);
    expect(denied.message.replace('github_delete_repo', 'NAME')).toBe(unknown.message.replace('github_no_such_tool', 'NAME'));
    expect(denied.data).toEqual({ error: 'tool_not_found', tool: 'github_delete_repo' });
    expect(unknown.data).toEqual({ error: 'tool_not_found', tool: 'github_no_such_tool' });
    // A tool nobody may use is unknown even when a caller guesses its name; an allowed one works.
    const ok = await dev.client.callTool({ name: 'memory_read_graph', arguments: {} });
    expect(ok.content).toEqual([{ type: 'text', text: 'memory:read_graph' }]);
    await dev.client.close();

    await h.gateway.audit.flush();
    const records = auditLines();
    const deniedRecord = records.find((r) => r.target.capability_name === 'github_delete_repo');
    expect(deniedRecord).toMatchObject({
      source: { user_id: 'dev-bot', roles: ['dev'] },
      target: { backend: 'github', method: 'call_tool', original_name: 'delete_repo' },
      outcome: { status: 'denied', policy_index: 1, error_type: 'AccessDenied' },
    });
    const unknownRecord = records.find((r) => r.target.capability_name === 'github_no_such_tool');
    expect(unknownRecord.outcome).toMatchObject({ status: 'error', error_type: 'ToolNotFoundError' });
    expect('policy_index' in unknownRecord.outcome).toBe(false);
    expect(records.find((r) => r.target.capability_name === 'memory_read_graph')).toMatchObject({
      source: { user_id: 'dev-bot', roles: ['dev'] },
      outcome: { status: 'success' },
    });
  });

  it('denies reads, prompts and subscriptions the same way', async () => {
    const dev = await connectAs(h, DEV);
    // The fixture's resources are not in the dev policy (nor in group kb for github).
    await expect(dev.client.readResource({ uri: 'fixture://github/info' })).rejects.toMatchObject({ data: { error: 'resource_not_found' } });
    await expect(dev.client.subscribeResource({ uri: 'fixture://github/info' })).rejects.toMatchObject({ data: { error: 'resource_not_found' } });
    expect((await dev.client.readResource({ uri: 'fixture://memory/info' })).contents[0]).toMatchObject({ text: 'info from memory' });
    const nobody = await connectAs(h, NOBODY);
    await expect(nobody.client.getPrompt({ name: 'github_greet', arguments: { name: 'x' } })).rejects.toMatchObject({ data: { error: 'prompt_not_found' } });
    await Promise.all([dev.client.close(), nobody.client.close()]);
  });

  it('does not tell a client what a backend it cannot call logs; its caller hears it', async () => {
    const { LoggingMessageNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const listener = await connectAs(h, NOBODY, 'sse');
    const heard: unknown[] = [];
    listener.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void heard.push(n.params.data));
    const admin = await connectAs(h, ADMIN, 'sse');
    const adminHeard: unknown[] = [];
    admin.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void adminHeard.push(n.params.data));
    await admin.client.callTool({ name: 'github_log', arguments: { level: 'error', message: 'github-internal-detail' } });
    expect(adminHeard).toContain('github-internal-detail');
    // One stream per SSE session, in order: anything sent to the listener before this answer has arrived.
    await listener.client.listTools();
    expect(heard).toEqual([]);
    await Promise.all([listener.client.close(), admin.client.close()]);
  });

  it('keeps a session to the identity that created it: another token is told it does not exist', async () => {
    const dev = await connectAs(h, DEV);
    const id = dev.sessionId();
    expect(id).not.toBe('');
    const asAdmin = { authorization: `Bearer ${ADMIN}`, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' };
    const list = { jsonrpc: '2.0', id: 5, method: 'tools/list' };
    const stolen = await post(`${h.url}/mcp`, asAdmin, list);
    expect(stolen.status).toBe(404);
    expect((await stolen.json()).error).toMatchObject({ code: -32001, message: `Session not found: ${id}` });
    expect((await fetch(`${h.url}/mcp`, { headers: { ...asAdmin, accept: 'text/event-stream' } })).status).toBe(404);
    expect((await fetch(`${h.url}/mcp`, { method: 'DELETE', headers: asAdmin })).status).toBe(404);
    expect((await post(`${h.url}/mcp`, { 'mcp-session-id': id }, list)).status).toBe(401);
    // The owner's session is untouched.
    expect(await toolNames(dev.client)).toContain('github_create_issue');
    await dev.client.close();
  });

  it('serves /sse the same way', async () => {
    const dev = await connectAs(h, DEV, 'sse');
    expect(await toolNames(dev.client)).not.toContain('github_delete_repo');
    expect((await callError(dev.client, 'github_delete_repo')).data).toEqual({ error: 'tool_not_found', tool: 'github_delete_repo' });
    await dev.client.close();
  });

  it('shows the user and roles of each session in GET /sessions, and no token anywhere', async () => {
    const dev = await connectAs(h, DEV);
    const res = await fetch(`${h.url}/manage/v1/sessions`, { headers: { authorization: `Bearer ${MGMT}` } });
    const { sessions } = await res.json();
    const mine = sessions.find((s: { id: string }) => s.id === dev.sessionId());
    expect(mine).toMatchObject({ user_id: 'dev-bot', roles: ['dev'] });
    await dev.client.close();
    await h.gateway.audit.flush();
    const everything = [...h.logs, readFileSync(join(h.dir, 'audit.jsonl'), 'utf8')].join('\n');
    for (const token of [DEV, ADMIN, NOBODY]) expect(everything).not.toContain(token);
    // The refusals above were logged with their reason only.
    expect(h.logs.some((l) => l.includes('MCP request refused: not authenticated') && l.includes('"reason":"invalid"'))).toBe(true);
  });

  it('POST /manage/v1/authorization/check answers what the policies say, with the management token', async () => {
    const check = (body: unknown, token: string | undefined = MGMT) =>
      fetch(`${h.url}/manage/v1/authorization/check`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
    const verdict = async (roles: string[], resource: string) => (await check({ roles, resource })).json();
    expect(await verdict(['dev'], 'tool:github_create_issue')).toEqual({
      allowed: true,
      policy_index: 2,
      effect: 'allow',
      reason: 'policy 2 (allow) matched the roles and the resource',
      conditions: [],
      policy: { effect: 'allow', roles: ['dev'], resources: ['tool:github_*', 'prompt:*', 'group:kb'] },
    });
    // Served by memory, in group kb: judged with its server and group, as a call would be.
    expect(await verdict(['dev'], 'tool:memory_read_graph')).toMatchObject({ allowed: true, policy_index: 2, effect: 'allow' });
    expect(await verdict(['dev'], 'tool:memory_delete_entities')).toMatchObject({ allowed: false, policy_index: 1, effect: 'deny' });
    expect(await verdict([], 'prompt:github_greet')).toMatchObject({
      allowed: false,
      policy_index: null,
      effect: 'deny',
      reason: 'no policy matched: default_effect deny',
    });
    expect(await verdict(['admin'], 'server:github')).toMatchObject({ allowed: true, policy_index: 0, effect: 'allow' });
    expect((await verdict([], 'prompt:github_greet')).policy).toBeNull();
    const bad = await check({ roles: ['dev'], resource: 'github_create_issue' });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toBe('bad_request');
    // A client token is no management token.
    expect((await check({ roles: [], resource: 'tool:x' }, DEV)).status).toBe(401);
  });

  it('gateway-client authz check prints the verdict and exits 0 when allowed, 1 when denied; sessions list shows the user', async () => {
    const client = (...args: string[]) => runBin(CLIENT_BIN, ['-s', h.url, '-t', MGMT, '--no-color', ...args]);
    const allowed = await client('-o', 'table', 'authz', 'check', '--role', 'dev', 'tool:github_create_issue');
    expect(allowed).toMatchObject({ code: 0, stdout: 'allowed: policy 2 (allow) matched the roles and the resource\n' });
    const denied = await client('-o', 'table', 'authz', 'check', '--role', 'dev', '--role', 'ops', 'tool:memory_delete_entities');
    expect(denied).toMatchObject({ code: 1, stdout: 'denied: policy 1 (deny) matched the roles and the resource\n' });
    const byDefault = await client('-o', 'json', 'authz', 'check', 'prompt:github_greet');
    expect(byDefault.code).toBe(1);
    expect(JSON.parse(byDefault.stdout)).toMatchObject({ allowed: false, policy_index: null, effect: 'deny', policy: null });
    expect((await client('authz', 'check', '--role', 'dev', 'github_create_issue')).code).toBe(1);

    const dev = await connectAs(h, DEV);
    const table = await client('-o', 'table', 'sessions', 'list');
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+TRANSPORT\s+REVISION\s+USER\s+TOOLS/);
    expect(table.stdout.split('\n').find((l) => l.startsWith(dev.sessionId()))).toMatch(/\sdev-bot\s/);
    await dev.client.close();
  });

  it('applies a reload that changes the policies to the next request, and tells open sessions their lists changed', async () => {
    const dev = await connectAs(h, DEV);
    let changed = 0;
    dev.client.setNotificationHandler((await import('@modelcontextprotocol/sdk/types.js')).ToolListChangedNotificationSchema, () => {
      changed++;
    });
    expect(await toolNames(dev.client)).not.toContain('github_delete_repo');
    h.writeConfig({
      ...config([{ effect: 'allow', roles: ['dev'], resources: ['tool:github_delete_repo'] }, ...POLICIES]),
      audit: { file: join(h.dir, 'audit.jsonl') },
      containers: { enabled: false },
    });
    const reload = await h.gateway.controller.reload('api');
    expect(reload.reloaded).toBe(true);
    await waitFor(() => changed > 0, 'tools/list_changed after the reload');
    expect(await toolNames(dev.client)).toContain('github_delete_repo');
    const result = await dev.client.callTool({ name: 'github_delete_repo', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'github:delete_repo' }]);
    await dev.client.close();
  });
});

describe('incoming_auth local: a workflow step is checked with the identity of the caller', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startGateway({
      server: { host: '127.0.0.1', port: 0, management: { token: MGMT } },
      backends: { fx: stdioFixture(['--name', 'fx']) },
      skills: { directory: copySkillFixtures(), default_status: 'enabled' },
      incoming_auth: {
        type: 'local',
        tokens: [
          { name: 'dev-bot', token: DEV, roles: ['dev'] },
          { name: 'admin-bot', token: ADMIN, roles: ['admin'] },
        ],
      },
      authorization: {
        enabled: true,
        policies: [
          // dev may start the workflow, but not call the tool its step calls.
          { effect: 'allow', roles: ['dev'], resources: ['server:skill:legacy-echo'] },
          { effect: 'allow', roles: ['admin'], resources: ['*'] },
        ],
      },
    });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('runs the steps for a caller who may use their tools, and refuses them to one who may not', async () => {
    const dev = await connectAs(h, DEV);
    expect(await toolNames(dev.client)).toEqual(['legacy-echo_shout']);
    const refused = await dev.client.callTool({ name: 'legacy-echo_shout', arguments: { text: 'hi' } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain('Unknown tool: fx_echo');
    const admin = await connectAs(h, ADMIN);
    const done = await admin.client.callTool({ name: 'legacy-echo_shout', arguments: { text: 'hi' } });
    expect(done.isError).toBeFalsy();
    expect(JSON.stringify(done.content)).toContain('hi!');
    await Promise.all([dev.client.close(), admin.client.close()]);

    // The management API acts as the management caller: not restricted.
    const viaApi = await fetch(`${h.url}/manage/v1/tools/call`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${MGMT}` },
      body: JSON.stringify({ tool: 'fx_echo', arguments: { text: 'from the api' } }),
    });
    expect(viaApi.status).toBe(200);

    await h.gateway.audit.flush();
    const records = readFileSync(join(h.dir, 'audit.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const step = records.find((r) => r.target.capability_name === 'fx_echo' && r.source.user_id === 'dev-bot');
    expect(step).toMatchObject({
      source: { roles: ['dev'] },
      outcome: { status: 'denied', policy_index: null },
      metadata: { skill: 'legacy-echo', workflow: 'shout', step: 'say' },
    });
    const management = records.find((r) => r.target.capability_name === 'fx_echo' && r.source.session_id === 'management');
    expect(management.outcome.status).toBe('success');
    expect('user_id' in management.source).toBe(false);
  });
});
