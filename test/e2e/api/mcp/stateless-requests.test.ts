/**
 * A client of the SDK's v2 line pinned to 2026-07-28 does through the gateway
 * what a 2025-11-25 client does, statelessly: discover, lists (with cache
 * hints), calls with progress, prompts, resources and their updates on a
 * listen stream, completions, logging at the request's level, cancellation;
 * and the revision's errors (headers, versions, unknown methods) are answered
 * as it numbers them. Backends: the fixture server over stdio and over HTTP.
 */
import { describe, it, expect, afterAll, beforeAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { fixtureCommand, startHttpFixture, type HttpFixture } from '../../../fixtures/spawn.js';
import { waitFor } from '../../../helpers/wait.js';
import { auditRecords } from '../../../helpers/audit-records.js';
import { CLIENT_BIN, runBin } from '../../../helpers/cli-run.js';

const MODERN = '2026-07-28';
const envelope = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };

describe('2026-07-28 clients, served without a session', () => {
  let h: Harness;
  let http: HttpFixture;
  const clients: Client[] = [];

  beforeAll(async () => {
    http = await startHttpFixture({ transport: 'streamable-http', name: 'httpb' });
    const stdio = fixtureCommand(['--name', 'stdiob']);
    h = await startGateway({
      backends: {
        s: { type: 'stdio', command: stdio.command, args: stdio.args },
        h: { type: 'streamable-http', url: http.url },
      },
    });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await h?.close();
    await http?.stop();
  });

  async function modernClient(name = 'modern-test'): Promise<Client> {
    const client = new Client({ name, version: '2.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`)));
    clients.push(client);
    return client;
  }

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${h.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, ...headers },
      body: JSON.stringify(body),
    });

  it('discovers both revisions and connects pinned to 2026-07-28', async () => {
    const client = await modernClient();
    expect(client.getProtocolEra()).toBe('modern');
    const discover = client.getDiscoverResult()!;
    expect(discover.supportedVersions).toEqual(expect.arrayContaining([MODERN, '2025-11-25']));
    expect(discover.capabilities).toMatchObject({ tools: { listChanged: true }, resources: { subscribe: true } });
    expect(discover._meta?.['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'mcp-gateway' });
  });

  it('lists carry resultType and cache hints, and no session id is ever issued', async () => {
    const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope } }, { 'mcp-method': 'tools/list' });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const body = (await res.json()) as { result: Record<string, unknown> };
    expect(body.result).toMatchObject({ resultType: 'complete', ttlMs: 30_000, cacheScope: 'public' });
    const names = (body.result.tools as Array<{ name: string }>).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['s_echo', 'h_echo', 's_slow']));
  });

  it('calls tools on both backends, with progress', async () => {
    const client = await modernClient();
    for (const b of ['s', 'h']) {
      const r = await client.callTool({ name: `${b}_echo`, arguments: { text: `hi ${b}` } });
      expect(r.structuredContent).toEqual({ text: `hi ${b}` });
    }
    const progress: number[] = [];
    const r = await client.callTool({ name: 'h_slow', arguments: { steps: 3, delay_ms: 20 } }, { onprogress: (p) => progress.push(p.progress) });
    expect(r.content).toEqual([{ type: 'text', text: 'done 3' }]);
    expect(progress).toEqual([1, 2, 3]);
  });

  it('prompts, resources, templates and completions', async () => {
    const client = await modernClient();
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(expect.arrayContaining(['s_greet', 'h_greet']));
    const prompt = await client.getPrompt({ name: 's_greet', arguments: { name: 'Ada' } });
    expect(JSON.stringify(prompt.messages)).toContain('Ada');
    const read = await client.readResource({ uri: 'fixture://httpb/info' });
    expect(read.contents).toEqual([{ uri: 'fixture://httpb/info', mimeType: 'text/plain', text: 'info from httpb' }]);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(expect.arrayContaining(['fixture://stdiob/items/{id}']));
    const completion = await client.complete({ ref: { type: 'ref/resource', uri: 'fixture://stdiob/items/{id}' }, argument: { name: 'id', value: '1' } });
    expect(completion.completion.values).toEqual(['1', '10']);
  });

  it('a log message reaches the request that asked for its level, and no other', async () => {
    const client = await modernClient();
    const logged: unknown[] = [];
    client.setNotificationHandler('notifications/message', (n) => void logged.push(n.params));
    await client.callTool({ name: 's_log', arguments: { level: 'warning', message: 'unasked' } });
    expect(logged).toEqual([]);
    await client.callTool({ name: 's_log', arguments: { level: 'warning', message: 'asked' }, _meta: { 'io.modelcontextprotocol/logLevel': 'info' } });
    expect(logged).toEqual([expect.objectContaining({ level: 'warning', data: 'asked' })]);
    await client.callTool({ name: 's_log', arguments: { level: 'info', message: 'below' }, _meta: { 'io.modelcontextprotocol/logLevel': 'error' } });
    expect(logged).toHaveLength(1);
  });

  it('a listen stream is acknowledged first and hears resource updates and list changes, tagged with its id', async () => {
    const client = await modernClient();
    const updates: Array<Record<string, unknown>> = [];
    const changes: Array<Record<string, unknown>> = [];
    client.setNotificationHandler('notifications/resources/updated', (n) => void updates.push(n.params as Record<string, unknown>));
    client.setNotificationHandler('notifications/tools/list_changed', (n) => void changes.push((n.params ?? {}) as Record<string, unknown>));
    const uri = 'fixture://stdiob/info';
    const sub = await client.listen({ toolsListChanged: true, resourceSubscriptions: [uri, 'fixture://nobody/x'] });
    expect(sub.honoredFilter).toEqual({ toolsListChanged: true, resourceSubscriptions: [uri] });
    await client.callTool({ name: 's_touch', arguments: { uri } });
    await waitFor(() => updates.length > 0, 'the resource update');
    expect(updates[0]).toMatchObject({ uri });
    await client.callTool({ name: 'h_add_tool', arguments: { name: 'fresh' } });
    await waitFor(() => changes.length > 0, 'the tools list change');
    expect(changes[0]!._meta).toBeDefined();
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('h_fresh');
    await sub.close();
  });

  it('closing the response stream cancels the call at the backend', async () => {
    const client = await modernClient();
    const before = JSON.parse(((await client.callTool({ name: 'h_last_cancelled', arguments: {} })).content as Array<{ text: string }>)[0]!.text) as {
      count: number;
    };
    const controller = new AbortController();
    // Closed once the call is running at the backend: its first progress says so.
    const call = client.callTool(
      { name: 'h_slow', arguments: { steps: 50, delay_ms: 100 } },
      { signal: controller.signal, onprogress: () => controller.abort('enough') },
    );
    await expect(call).rejects.toThrow();
    await waitFor(async () => {
      const now = await client.callTool({ name: 'h_last_cancelled', arguments: {} });
      return (JSON.parse((now.content as Array<{ text: string }>)[0]!.text) as { count: number }).count > before.count;
    }, 'the backend call cancelled');
  });

  it('answers the revision’s errors: header mismatch, unsupported version, unknown method, unknown resource', async () => {
    const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 's_echo', arguments: { text: 'x' }, _meta: envelope } };
    const mismatch = await post(call, { 'mcp-method': 'tools/call', 'mcp-name': 'h_echo' });
    expect(mismatch.status).toBe(400);
    expect(await mismatch.json()).toMatchObject({ id: 7, error: { code: -32020 } });

    const old = { ...call, params: { ...call.params, _meta: { ...envelope, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } } };
    const unsupported = await post(old, { 'mcp-method': 'tools/call', 'mcp-name': 's_echo', 'mcp-protocol-version': '2099-01-01' });
    expect(unsupported.status).toBe(400);
    const body = (await unsupported.json()) as { error: { code: number; data: { supported: string[] } } };
    expect(body.error.code).toBe(-32022);
    expect(body.error.data.supported).toEqual(expect.arrayContaining([MODERN, '2025-11-25']));

    const unknown = await post(
      { jsonrpc: '2.0', id: 8, method: 'resources/subscribe', params: { uri: 'x', _meta: envelope } },
      { 'mcp-method': 'resources/subscribe' },
    );
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ id: 8, error: { code: -32601 } });

    const client = await modernClient();
    await expect(client.readResource({ uri: 'fixture://nobody/x' })).rejects.toMatchObject({ code: -32602 });
  });

  it('refuses a malformed envelope with -32602 on 400, whichever check finds it, and runs nothing', async () => {
    const headers = { 'mcp-method': 'tools/call', 'mcp-name': 's_echo' };
    const callWith = (id: number, meta: Record<string, unknown>) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 's_echo', arguments: { text: 'never run' }, _meta: { ...envelope, ...meta } },
    });
    // Calls of s_echo in the audit trail (a record carries no arguments, so they are counted).
    const audited = () => auditRecords(join(h.dir, 'audit.jsonl'), (r) => r.target?.capability_name === 's_echo').length;
    const before = audited();
    // Capabilities are an object, so the request is recognised without the classifier; the SDK's Server checks their members.
    const deep = await post(callWith(90, { 'io.modelcontextprotocol/clientCapabilities': { roots: 'yes' } }), headers);
    expect(deep.status).toBe(400);
    expect(await deep.json()).toMatchObject({ id: 90, error: { code: -32602, message: expect.stringContaining('_meta envelope') } });
    // An unknown log level goes to the SDK's classifier, which refuses it itself.
    const level = await post(callWith(91, { 'io.modelcontextprotocol/logLevel': 'loud' }), headers);
    expect(level.status).toBe(400);
    expect(await level.json()).toMatchObject({ id: 91, error: { code: -32602, message: expect.stringContaining('_meta envelope') } });
    // Neither reached a backend: the gateway keeps serving, and no call was made.
    const client = await modernClient();
    expect((await client.callTool({ name: 's_echo', arguments: { text: 'after' } })).content).toEqual([{ type: 'text', text: 'after' }]);
    await waitFor(() => audited() > before, 'the audit record of the call after');
    expect(audited()).toBe(before + 1);
  });

  it('the client shows in GET /manage/v1/clients and its name in the audit record', async () => {
    const client = await modernClient('audited-client');
    await client.callTool({ name: 's_echo', arguments: { text: 'audit me' } });
    const listed = (await (await fetch(`${h.url}/manage/v1/clients`)).json()) as { clients: Array<Record<string, unknown>> };
    expect(listed.clients).toContainEqual(
      expect.objectContaining({ name: 'audited-client', version: '2.0.0', protocol_version: MODERN, user_id: null, replica: expect.any(String) }),
    );
    const table = await runBin(CLIENT_BIN, ['-s', h.url, '--no-color', '-o', 'table', 'clients', 'list']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^CLIENT +VERSION +REVISION +USER +REQUESTS/);
    expect(table.stdout).toMatch(/audited-client +2\.0\.0 +2026-07-28 +- +\d+/);
    await waitFor(() => readFileSync(join(h.dir, 'audit.jsonl'), 'utf8').includes('audited-client'), 'the audit record');
    const record = readFileSync(join(h.dir, 'audit.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { source: Record<string, unknown> })
      .find((r) => r.source.client_name === 'audited-client');
    expect(record?.source).toMatchObject({ session_id: '', client_name: 'audited-client', client_version: '2.0.0', protocol_version: MODERN });
  });
});
