/**
 * The optimizer under access policies: a caller finds, is shown and may call
 * only what the policies let it use. find_tool never names another tool (not
 * in its matches, not in an unknown name's suggestions), and call_tool of a
 * denied tool answers exactly as an unknown one does. A real gateway, real
 * stdio fixture backends, SDK clients with local tokens over streamable HTTP.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { stdioFixture } from '../../../fixtures/fixture-backend.js';
import { rpcError } from '../../../helpers/rpc-error.js';

const DEV = 'dev-token-0123456789abcdef';
const ADMIN = 'admin-token-0123456789abcdef';

async function connectAs(h: Harness, token: string): Promise<Client> {
  const client = new Client({ name: 'optimizer-access', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

async function found(client: Client, query: string): Promise<string[]> {
  const result = (await client.callTool({ name: 'find_tool', arguments: { query, limit: 50 } })) as CallToolResult;
  expect(result.isError).toBeFalsy();
  return (result.structuredContent as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
}

describe('optimizer with authorization: each caller finds only what it may use', () => {
  let h: Harness;
  let dev: Client;
  let admin: Client;

  beforeAll(async () => {
    h = await startGateway({
      server: { host: '127.0.0.1', port: 0, management: { open: true } },
      health: { interval_s: 3600 },
      optimizer: { enabled: true, keep_tools: ['*_whoami'] },
      incoming_auth: {
        type: 'local',
        tokens: [
          { name: 'dev-bot', token: DEV, roles: ['dev'] },
          { name: 'admin-bot', token: ADMIN, roles: ['admin'] },
        ],
      },
      authorization: {
        enabled: true,
        default_effect: 'deny',
        policies: [
          { effect: 'allow', roles: ['admin'], resources: ['*'] },
          { effect: 'allow', roles: ['dev'], resources: ['server:alpha'] },
        ],
      },
      backends: { alpha: stdioFixture(['--name', 'alpha']), beta: stdioFixture(['--name', 'beta']) },
    });
    [dev, admin] = await Promise.all([connectAs(h, DEV), connectAs(h, ADMIN)]);
  });

  afterAll(async () => {
    await Promise.all([dev?.close(), admin?.close()]);
    await h?.close();
  });

  it('shows each caller the meta-tools and only the kept tools it may use', async () => {
    const devList = (await dev.listTools()).tools.map((t) => t.name).sort();
    const adminList = (await admin.listTools()).tools.map((t) => t.name).sort();
    expect(devList).toEqual(['alpha_whoami', 'call_tool', 'find_tool']);
    expect(adminList).toEqual(['alpha_whoami', 'beta_whoami', 'call_tool', 'find_tool']);
  });

  it('find_tool names no tool of a backend the caller may not use; the admin finds both', async () => {
    const forDev = await found(dev, 'echo the text back');
    const forAdmin = await found(admin, 'echo the text back');
    expect(forAdmin).toEqual(expect.arrayContaining(['alpha_echo', 'beta_echo']));
    expect(forDev).toContain('alpha_echo');
    expect(forDev.filter((n) => n.startsWith('beta_'))).toEqual([]);
  });

  it('call_tool of a denied tool answers as an unknown one, and its suggestions name only allowed tools', async () => {
    const denied = await rpcError(dev.callTool({ name: 'call_tool', arguments: { name: 'beta_echo', arguments: { text: 'x' } } }));
    const unknown = await rpcError(dev.callTool({ name: 'call_tool', arguments: { name: 'gamma_echo', arguments: { text: 'x' } } }));
    expect(denied.code).toBe(unknown.code);
    expect(denied.message.replace('beta_echo', '')).not.toContain('beta_');
    const suggestions = (denied.data as { suggestions?: string[] } | undefined)?.suggestions ?? [];
    expect(suggestions.filter((n) => n.startsWith('beta_'))).toEqual([]);
    const allowed = (await dev.callTool({ name: 'call_tool', arguments: { name: 'alpha_echo', arguments: { text: 'ok' } } })) as CallToolResult;
    expect(allowed.structuredContent).toEqual({ text: 'ok' });
    const asAdmin = (await admin.callTool({ name: 'call_tool', arguments: { name: 'beta_echo', arguments: { text: 'ok' } } })) as CallToolResult;
    expect(asAdmin.structuredContent).toEqual({ text: 'ok' });
    // The refusal went through the router's policy check: audited as denied, with who asked.
    await h.gateway.audit.flush();
    const records = readFileSync(join(h.dir, 'audit.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { source: { user_id?: string }; target: { capability_name: string }; outcome: { status: string } });
    expect(records.find((r) => r.target.capability_name === 'beta_echo' && r.source.user_id === 'dev-bot')?.outcome.status).toBe('denied');
  });
});
