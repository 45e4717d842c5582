/**
 * The optimizer end to end: a real gateway with real stdio backends (the SDK
 * fixture server) and a real SDK client over streamable HTTP. With the
 * optimizer on the client sees find_tool, call_tool and the kept tools;
 * find_tool searches the catalog (and follows it); call_tool answers exactly
 * as a direct call does, with progress and cancellation passed through, audited
 * under the real tool's name; an unknown name gets suggestions. Operators get
 * the same search at GET /manage/v1/tools/search.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { AuditRecord } from '../../../../schemas/audit-record.js';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { collectNotifications } from '../../../helpers/notifications.js';
import { stdioFixture } from '../../../fixtures/fixture-backend.js';
import { waitFor } from '../../../helpers/wait.js';
import { managementClient } from '../../../helpers/management-client.js';
import { rpcError } from '../../../helpers/rpc-error.js';

interface Found {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  backend: string;
  score: number;
}

const config = (optimizer: Record<string, unknown>, withB = true) => ({
  health: { interval_s: 3600 },
  feature_flags: { hot_reload: true },
  controller: { reload_debounce_ms: 50 },
  optimizer,
  backends: {
    alpha: stdioFixture(['--name', 'alpha']),
    ...(withB ? { beta: { ...stdioFixture(['--name', 'beta', '--tool-count', '60']), filters: { tools: { deny: ['throw'] } } } } : {}),
  },
});

async function find(client: Client, query: string, limit?: number): Promise<Found[]> {
  const result = (await client.callTool({ name: 'find_tool', arguments: { query, ...(limit !== undefined ? { limit } : {}) } })) as CallToolResult;
  expect(result.isError).toBeFalsy();
  return (result.structuredContent as { tools: Found[] }).tools;
}

const viaCallTool = (client: Client, name: string, args?: Record<string, unknown>) =>
  client.callTool({ name: 'call_tool', arguments: { name, ...(args ? { arguments: args } : {}) } });

describe('optimizer: find_tool and call_tool in place of the catalog', () => {
  let h: Harness;
  let client: Client;

  beforeAll(async () => {
    h = await startGateway(config({ enabled: true, keep_tools: ['alpha_who*'], max_results: 5 }));
    client = await h.connect();
  });
  afterAll(async () => h?.close());

  it('lists find_tool, call_tool and the kept tools, nothing else', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['find_tool', 'call_tool', 'alpha_whoami']);
    expect(h.gateway.serving.routes.lists.tools.length).toBeGreaterThan(80);
  });

  it('find_tool returns the best matches, the input schema exactly as the tool has it, and a readable text', async () => {
    const result = (await client.callTool({ name: 'find_tool', arguments: { query: 'add two numbers together' } })) as CallToolResult;
    const tools = (result.structuredContent as { tools: Found[] }).tools;
    expect(tools.length).toBeGreaterThan(0);
    expect(tools.length).toBeLessThanOrEqual(5);
    expect(['alpha_add', 'beta_add']).toContain(tools[0].name);
    const route = h.gateway.serving.routes.tools.get(tools[0].name)!;
    expect(tools[0].inputSchema).toEqual(route.tool.inputSchema);
    expect(tools[0].backend).toBe(route.backend);
    expect(tools[0].description).toBe('Adds two numbers');
    const scores = tools.map((t) => t.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    const text = (result.content[0] as { text: string }).text;
    for (const t of tools) expect(text).toContain(t.name);
    expect(text).toContain(JSON.stringify(route.tool.inputSchema));
  });

  it('finds by stems, typos and related words', async () => {
    expect((await find(client, 'echoing some input back')).map((t) => t.name)).toContain('alpha_echo');
    expect((await find(client, 'retrn my inpput')).map((t) => t.name)).toContain('alpha_echo');
    // "cancelled" is in last_cancelled's name and description; "aborted" only through the synonym table.
    expect((await find(client, 'which slow calls were aborted?')).map((t) => t.name)).toContain('alpha_last_cancelled');
  });

  it('a query matching nothing is an empty list; an explicit limit is honoured up to 50', async () => {
    expect(await find(client, 'xylophone quaternion')).toEqual([]);
    expect(await find(client, '   ')).toEqual([]);
    expect(await find(client, 'scale tool', 12)).toHaveLength(12);
    expect(await find(client, 'scale tool', 500)).toHaveLength(50);
    const bad = (await client.callTool({ name: 'find_tool', arguments: { query: 'echo', limit: 0 } }).catch((e: unknown) => e)) as McpError;
    expect(bad).toBeInstanceOf(McpError);
    expect(bad.code).toBe(-32602);
  });

  it('does not find filtered tools, and call_tool cannot call them', async () => {
    const names = (await find(client, 'fails the request with a JSON-RPC error', 50)).map((t) => t.name);
    expect(names).toContain('alpha_throw');
    expect(names).not.toContain('beta_throw');
    const err = await rpcError(viaCallTool(client, 'beta_throw'));
    expect(err.message).toContain('Unknown tool: beta_throw');
  });

  it('call_tool answers exactly what a direct call answers: result, tool error, JSON-RPC error', async () => {
    expect(await viaCallTool(client, 'alpha_echo', { text: 'héllo' })).toEqual(await client.callTool({ name: 'alpha_echo', arguments: { text: 'héllo' } }));
    const failed = await viaCallTool(client, 'beta_fail', { message: 'nope' });
    expect(failed).toEqual(await client.callTool({ name: 'beta_fail', arguments: { message: 'nope' } }));
    expect(failed.isError).toBe(true);
    const thrownVia = await rpcError(viaCallTool(client, 'alpha_throw', { message: 'boom', code: -32001 }));
    const thrownDirect = await rpcError(client.callTool({ name: 'alpha_throw', arguments: { message: 'boom', code: -32001 } }));
    expect([thrownVia.code, thrownVia.message]).toEqual([thrownDirect.code, thrownDirect.message]);
  });

  it('an unknown name answers the unknown-tool code, suggesting the three closest names', async () => {
    const direct = await rpcError(client.callTool({ name: 'alpha_ech', arguments: {} }));
    const via = await rpcError(viaCallTool(client, 'alpha_ech', {}));
    expect(via.code).toBe(direct.code);
    expect(via.message).toMatch(/Unknown tool: alpha_ech; did you mean '[^']+', '[^']+', '[^']+'\?/);
    expect(via.message).toContain("'alpha_echo'");
    expect((via.data as { suggestions: string[] }).suggestions).toHaveLength(3);
    // A missing prefix is a name's words too.
    expect((await rpcError(viaCallTool(client, 'last_cancelled'))).message).toContain("'alpha_last_cancelled'");
  });

  it('passes progress through call_tool, and a cancellation reaches the backend', async () => {
    const progress: number[] = [];
    const result = await client.callTool({ name: 'call_tool', arguments: { name: 'alpha_slow', arguments: { steps: 3, delay_ms: 30 } } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect((result.content as Array<{ text: string }>)[0].text).toBe('done 3');
    expect(progress).toEqual([1, 2, 3]);

    const controller = new AbortController();
    const call = client.callTool({ name: 'call_tool', arguments: { name: 'beta_slow', arguments: { steps: 100, delay_ms: 100 } } }, undefined, {
      signal: controller.signal,
      onprogress: () => controller.abort('changed my mind'),
    });
    await expect(call).rejects.toThrow();
    const seen = await waitFor(async () => {
      const r = (await viaCallTool(client, 'beta_last_cancelled')) as CallToolResult;
      const state = JSON.parse((r.content[0] as { text: string }).text) as { cancelled: boolean };
      return state.cancelled ? state : undefined;
    }, 'the cancellation at the backend');
    expect(seen.cancelled).toBe(true);
  });

  it('audits a call_tool call under the real tool name', async () => {
    await viaCallTool(client, 'alpha_add', { a: 40, b: 2 });
    const records = await waitFor(() => {
      const lines = readFileSync(h.gateway.controller.config.audit.file, 'utf8').split('\n').filter(Boolean);
      const found = lines.map((l) => JSON.parse(l) as AuditRecord).filter((r) => r.target.capability_name === 'alpha_add');
      return found.length > 0 ? found : undefined;
    }, 'the audit record');
    expect(records[0].target).toMatchObject({ method: 'call_tool', capability_name: 'alpha_add', backend: 'alpha', original_name: 'add' });
    expect(records[0].outcome.status).toBe('success');
  });

  it('direct calls of real tools still work', async () => {
    const r = (await client.callTool({ name: 'alpha_add', arguments: { a: 1, b: 2 } })) as CallToolResult;
    expect((r.content[0] as { text: string }).text).toBe('3');
  });

  it('the index follows the catalog: a tool a backend adds is found', async () => {
    await viaCallTool(client, 'alpha_add_tool', { name: 'reticulate_splines' });
    const found = await waitFor(async () => (await find(client, 'reticulating splines')).find((t) => t.name === 'alpha_reticulate_splines'), 'the new tool');
    expect(found.backend).toBe('alpha');
  });

  it('tells the client of a tool list change only when what it sees changes (a kept tool)', async () => {
    const notes = collectNotifications(client);
    await viaCallTool(client, 'alpha_add_tool', { name: 'frobnicate_widgets' });
    await waitFor(async () => (await find(client, 'frobnicate widgets')).some((t) => t.name === 'alpha_frobnicate_widgets'), 'the unlisted tool indexed');
    // A kept tool (alpha_who*) is listed: this change is visible. Notifications share one stream, in order:
    // had the first change been announced, it would have arrived before this one.
    await viaCallTool(client, 'alpha_add_tool', { name: 'whoever' });
    await notes.waitFor('notifications/tools/list_changed');
    expect(notes.count('notifications/tools/list_changed')).toBe(1);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['find_tool', 'call_tool', 'alpha_whoami', 'alpha_whoever']);
  });

  it('GET /manage/v1/tools/search answers the same search to operators', async () => {
    const api = managementClient(h.url);
    const res = await api.get('/tools/search?q=add%20two%20numbers&limit=2');
    expect(res.status).toBe(200);
    expect(res.body.tools).toHaveLength(2);
    expect(Object.keys(res.body.tools[0]).sort()).toEqual(['backend', 'description', 'name', 'score']);
    expect(['alpha_add', 'beta_add']).toContain(res.body.tools[0].name);
    expect((await api.get('/tools/search?q=xylophone')).body).toEqual({ tools: [] });
    const missing = await api.get('/tools/search');
    expect([missing.status, missing.body.error]).toEqual([400, 'bad_request']);
    expect((await api.get('/tools/search?q=echo&limit=51')).status).toBe(400);
    expect((await api.get('/status')).body.feature_flags.optimizer).toBe(true);
  });

  it('follows reloads: a backend leaving leaves the index; turning the optimizer off shows the catalog and says so', async () => {
    const notes = collectNotifications(client);
    h.writeConfig({
      ...config({ enabled: true, keep_tools: ['alpha_who*'] }, false),
      server: { host: '127.0.0.1', port: 0 },
      audit: { file: h.gateway.controller.config.audit.file },
    });
    await h.gateway.controller.reload();
    await waitFor(async () => (await find(client, 'scale tool', 50)).every((t) => t.backend !== 'beta'), 'beta gone from the index');
    expect((await find(client, 'scale tool', 50)).map((t) => t.backend)).not.toContain('beta');

    h.writeConfig({ ...config({}, false), server: { host: '127.0.0.1', port: 0 }, audit: { file: h.gateway.controller.config.audit.file } });
    await h.gateway.controller.reload();
    await waitFor(() => notes.all.some((n) => n.method === 'notifications/tools/list_changed'), 'tools/list_changed');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('alpha_echo');
    expect(tools.map((t) => t.name)).not.toContain('find_tool');
    // Off, find_tool is a name like any other: no backend has it.
    expect((await rpcError(client.callTool({ name: 'find_tool', arguments: { query: 'echo' } }))).message).toContain('Unknown tool: find_tool');
    expect((await managementClient(h.url).get('/status')).body.feature_flags.optimizer).toBe(false);
  });
});

describe('optimizer: feature_flags.optimizer turns it on with the defaults', () => {
  let h: Harness;
  afterAll(async () => h?.close());

  it('lists only the meta-tools and returns five matches by default', async () => {
    h = await startGateway({
      health: { interval_s: 3600 },
      feature_flags: { optimizer: true },
      backends: { beta: stdioFixture(['--name', 'beta', '--tool-count', '20']) },
    });
    const client = await h.connect();
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['find_tool', 'call_tool']);
    expect(await find(client, 'scale tool')).toHaveLength(5);
  });
});
