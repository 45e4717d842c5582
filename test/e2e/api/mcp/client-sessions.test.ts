/**
 * Client sessions on /mcp (Mcp-Session-Id, GET stream, DELETE) and /sse, and
 * reaping of sessions idle past server.session_ttl (with their subscriptions).
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { fixtureCommand } from '../../../fixtures/spawn.js';
import { waitFor } from '../../../helpers/wait.js';

const text = (r: unknown) => (r as { content: Array<{ text: string }> }).content[0].text;

const initBody = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const JSON_AND_SSE = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('core: MCP endpoints and sessions', () => {
  let h: Harness;
  beforeAll(async () => {
    const f = fixtureCommand(['--name', 'fx']);
    h = await startGateway({ backends: { fx: { type: 'stdio', command: f.command, args: f.args } } });
  });
  afterAll(() => h?.close());

  it('POST /mcp initialize creates a session named by Mcp-Session-Id; GET opens its stream; DELETE ends it', async () => {
    const init = await fetch(`${h.url}/mcp`, { method: 'POST', headers: JSON_AND_SSE, body: JSON.stringify(initBody) });
    expect(init.status).toBe(200);
    const sid = init.headers.get('mcp-session-id');
    expect(sid).toMatch(/^[0-9a-f-]{36}$/);
    await init.text();
    expect(h.gateway.sessions.get(sid!)).toBeDefined();
    const headers = { ...JSON_AND_SSE, 'mcp-session-id': sid!, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION };
    const initialized = await fetch(`${h.url}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    expect(initialized.status).toBe(202);

    const list = await fetch(`${h.url}/mcp`, {
      method: 'POST',
      headers: { ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(list.status).toBe(200);
    expect(await list.text()).toContain('fx_echo');

    const ctrl = new AbortController();
    const stream = await fetch(`${h.url}/mcp`, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-session-id': sid!, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION },
      signal: ctrl.signal,
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    ctrl.abort();

    const del = await fetch(`${h.url}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': sid!, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION } });
    expect(del.status).toBe(200);
    await waitFor(() => h.gateway.sessions.get(sid!) === undefined, 'the session to be forgotten');
    const after = await fetch(`${h.url}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }) });
    expect(after.status).toBe(404);
    expect(await after.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 } });
  });

  it('rejects requests without a session, or with an unknown one', async () => {
    const noSession = await fetch(`${h.url}/mcp`, {
      method: 'POST',
      headers: JSON_AND_SSE,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(noSession.status).toBe(400);
    expect(((await noSession.json()) as { error: { message: string } }).error.message).toMatch(/initialize/);
    const unknown = await fetch(`${h.url}/mcp`, {
      method: 'POST',
      headers: { ...JSON_AND_SSE, 'mcp-session-id': 'no-such-session' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(unknown.status).toBe(404);
    const getNoSession = await fetch(`${h.url}/mcp`, { method: 'GET', headers: { accept: 'text/event-stream' } });
    expect(getNoSession.status).toBe(400);
    const sseUnknown = await fetch(`${h.url}/messages?sessionId=nope`, {
      method: 'POST',
      headers: JSON_AND_SSE,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(sseUnknown.status).toBe(404);
  });

  it('an SDK client terminating its session (DELETE) removes it from the gateway', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`));
    const client = new Client({ name: 't', version: '1' });
    await client.connect(transport);
    const sid = transport.sessionId!;
    expect(h.gateway.sessions.get(sid)?.transportType).toBe('streamable-http');
    await transport.terminateSession();
    await waitFor(() => h.gateway.sessions.get(sid) === undefined, 'the session to be removed');
    await client.close();
  });

  it('an SSE client disconnecting removes its session', async () => {
    const before = h.gateway.sessions.size;
    const client = await h.connect({ transport: 'sse' });
    await waitFor(() => h.gateway.sessions.size === before + 1, 'the SSE session to be added');
    expect(await client.ping()).toEqual({});
    await client.close();
    await waitFor(() => h.gateway.sessions.size === before, 'the SSE session to be removed');
  });
});

describe('core: idle sessions are reaped after server.session_ttl', () => {
  let h: Harness;
  beforeAll(async () => {
    const f = fixtureCommand(['--name', 'fx']);
    h = await startGateway({ server: { host: '127.0.0.1', port: 0, session_ttl: 2 }, backends: { fx: { type: 'stdio', command: f.command, args: f.args } } });
  });
  afterAll(() => h?.close());

  it('closes idle /mcp and /sse sessions, and drops their resource subscriptions at the backend', async () => {
    const sessionIds = async () => (await h.gateway.sessions.records()).map((r) => r.id);
    await h.connect({ transport: 'sse' });
    const sseId = (await sessionIds())[0];
    const httpClient = await h.connect();
    const httpId = (await sessionIds()).find((id) => id !== sseId)!;
    const ids = { sse: sseId, 'streamable-http': httpId };
    expect(h.gateway.sessions.get(sseId)?.transportType).toBe('sse');
    expect(h.gateway.sessions.get(httpId)?.transportType).toBe('streamable-http');
    const uri = 'fixture://fx/info';
    await httpClient.subscribeResource({ uri });
    expect(text(await httpClient.callTool({ name: 'fx_touch', arguments: { uri } }))).toBe(`updated ${uri}`);

    await waitFor(() => !h.gateway.sessions.get(ids.sse) && !h.gateway.sessions.get(ids['streamable-http']), 'both idle sessions to be reaped');
    expect(h.logs.some((l) => l.includes('closing idle client session'))).toBe(true);
    // The reaped sessions are gone for good.
    await expect(httpClient.listTools()).rejects.toThrow();
    const ssePost = await fetch(`${h.url}/messages?sessionId=${ids.sse}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }),
    });
    expect(ssePost.status).toBe(404);
    // Its subscription went with it: the backend was unsubscribed.
    const fresh = await h.connect();
    expect(text(await fresh.callTool({ name: 'fx_touch', arguments: { uri } }))).toBe(`not subscribed ${uri}`);
  });
});
