/**
 * Issue 31 §5(b): a gateway takes requests before its backends have
 * connected. While a backend is in its first connect attempt (a fixture
 * that answers initialize only once the test says so), the gateway is not
 * ready, a name no backend serves yet is never "Unknown tool": it waits for
 * the first connects (bounded by `controller.first_connect_wait_s`), then
 * gets a retryable error; a list waits too, and says when it is incomplete.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startGateway, type Harness } from '../../helpers/gateway-harness.js';
import { stdioFixture } from '../../fixtures/fixture-backend.js';
import { managementClient } from '../../helpers/management-client.js';
import { rpcError } from '../../helpers/rpc-error.js';
import { waitFor } from '../../helpers/wait.js';
import { RpcCode } from '../../../schemas/json-rpc-codes.js';

const INCOMPLETE = 'mcp-gateway/incomplete';
const names = (tools: Array<{ name: string }>) => tools.map((t) => t.name);
const textOf = (result: unknown) => (result as { content: Array<{ text: string }> }).content[0]!.text;

describe('backends in their first connect attempt', () => {
  let h: Harness;
  let client: Client;
  let go: string;
  let config: Record<string, unknown>;

  beforeAll(async () => {
    go = join(mkdtempSync(join(tmpdir(), 'gw-first-connect-')), 'go');
    config = {
      feature_flags: { hot_reload: true },
      // Short at first: the answers past the bound are looked at before a reload makes it long.
      controller: { first_connect_wait_s: 0.2, reload_debounce_ms: 600_000 },
      backends: {
        fast: stdioFixture(['--name', 'fast']),
        // Answers initialize only once the test creates `go`; its connect timeout outlasts the test.
        slow: { ...stdioFixture(['--name', 'slow', '--start-when', go]), timeouts: { connect_s: 300 } },
      },
    };
    h = await startGateway(config, { waitForBackends: false });
    await waitFor(() => h.gateway.controller.backendRecord('fast')?.phase === 'Ready', 'fast to connect');
    client = await h.connect();
  });
  afterAll(async () => {
    writeFileSync(go, '');
    await h?.close();
  });

  it('not ready until every backend has had its first attempt, though one is connected', async () => {
    const ready = await managementClient(h.url).get('/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.reason).toBe('backends still in their first connect attempt: slow');
    expect(h.gateway.controller.backendRecord('slow')?.phase).toBe('Initializing');
  });

  it('past the wait, a tool of the backend still connecting is a retryable error, not an unknown tool', async () => {
    const err = await rpcError(client.callTool({ name: 'slow_echo', arguments: { text: 'x' } }));
    expect(err.code).not.toBe(RpcCode.InvalidParams);
    expect(err.message).toMatch(/'slow_echo' is not available yet: 1 backend is still connecting for the first time; retry in 2 s/);
    expect(err.data).toMatchObject({ error: 'backend_unavailable', capability: 'slow_echo', backends_connecting: 1, retry_after_s: 2 });
    // The management API's call answers the same, with Retry-After.
    const viaApi = await managementClient(h.url).post('/tools/call', { tool: 'slow_echo', arguments: { text: 'x' } });
    expect(viaApi.status).toBe(503);
    expect(viaApi.headers.get('retry-after')).toBe('2');
    expect(viaApi.body).toMatchObject({ error: 'backend_unavailable', details: { backends_connecting: 1 } });
    // A tool of a connected backend is served at once.
    expect(textOf(await client.callTool({ name: 'fast_echo', arguments: { text: 'here' } }))).toContain('here');
  });

  it('past the wait, a list says it is incomplete', async () => {
    const listed = await client.listTools();
    expect(names(listed.tools)).toContain('fast_echo');
    expect(names(listed.tools)).not.toContain('slow_echo');
    expect(listed._meta?.[INCOMPLETE]).toEqual({ backends_connecting: 1, retry_after_s: 2 });
  });

  it('within the wait, a call and a list wait for the backend and get its tools; then an unknown name is unknown', async () => {
    h.writeConfig({ ...(JSON.parse(JSON.stringify(h.gateway.controller.loaded.config)) as object), controller: { first_connect_wait_s: 300 } });
    expect((await managementClient(h.url).post('/reload')).body.reloaded).toBe(true);
    const call = client.callTool({ name: 'slow_echo', arguments: { text: 'waited' } });
    const list = client.listTools();
    writeFileSync(go, '');
    expect(textOf(await call)).toContain('waited');
    const full = await list;
    expect(names(full.tools)).toEqual(expect.arrayContaining(['fast_echo', 'slow_echo']));
    expect(full._meta?.[INCOMPLETE]).toBeUndefined();
    expect((await managementClient(h.url).get('/ready')).status).toBe(200);
    const unknown = await rpcError(client.callTool({ name: 'slow_nothing', arguments: {} }));
    expect(unknown.code).toBe(RpcCode.InvalidParams);
    expect(unknown.message).toMatch(/Unknown tool: slow_nothing/);
  });
});
