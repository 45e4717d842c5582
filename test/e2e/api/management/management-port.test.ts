/**
 * Issue 31, item 4: `server.management.port` gives the management API (its
 * health and readiness probes too) a listener of its own, and the MCP port
 * no longer serves it (404 under /manage/v1), so a network policy can keep
 * the management port to operators. The real `gateway server` records both
 * listeners in its session file and banner, and `gateway status`,
 * `gateway-client` and the TUI's server list find the management API there.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CLIENT_BIN, GATEWAY_BIN, runBin } from '../../../helpers/cli-run.js';
import { startGatewayCli, type GatewayProcess } from '../../../helpers/gateway-cli.js';
import { managementClient } from '../../../helpers/management-client.js';
import { stdioFixture } from '../../../fixtures/fixture-backend.js';
import { serverChoices } from '../../../../cli/servers/server-choices.js';

const MGMT = 'port-test-management-token-0123456789abcdef';
const CLIENT = 'port-test-client-token-0123456789';

describe('server.management.port: the management API on a listener of its own', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let gw: GatewayProcess;
  let managementUrl: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-mgmt-port-'));
    const file = join(dir, 'config.yaml');
    writeFileSync(
      file,
      stringify({
        server: { host: '127.0.0.1', port: 0, management: { port: 0 } },
        audit: { file: join(dir, 'audit.jsonl') },
        containers: { enabled: false },
        incoming_auth: { type: 'local', tokens: [{ name: 'dev-bot', token: CLIENT, roles: ['dev'] }] },
        backends: { fx: stdioFixture(['--name', 'fx']) },
      }),
    );
    env = { ...process.env, GATEWAY_STATE_DIR: join(dir, 'state'), GATEWAY_MGMT_TOKEN: MGMT, GATEWAY_URL: '' };
    gw = await startGatewayCli({ args: ['--config', file, '--name', 'ports', '--log-format', 'pretty'], cwd: dir, env });
    managementUrl = /Management API\s+(http:\/\/\S+)\/manage\/v1/.exec(gw.stdout())![1]!;
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
  });

  it('the banner names two listeners; the MCP one answers 404 under /manage/v1, even for the probes', async () => {
    expect(managementUrl).not.toBe(gw.url);
    for (const path of ['/health', '/ready', '/status', '/']) {
      const res = await managementClient(gw.url, MGMT).get(path);
      expect(res.status, `${path} on the MCP port`).toBe(404);
    }
    const api = managementClient(managementUrl, MGMT);
    expect((await api.get('/health', { token: null })).status).toBe(200);
    expect((await api.get('/ready', { token: null })).status).toBe(200);
    // The token still guards it: its own port is no reason to be open.
    expect((await api.get('/status', { token: null })).status).toBe(401);
    const status = await api.get('/status');
    expect(status.status).toBe(200);
    // GET /status tells where MCP clients connect: the MCP listener.
    expect(status.body.transport.streamable_http_url).toBe(`${gw.url}/mcp`);
  });

  it('MCP is served on its port only: the management listener has no /mcp, /sse or protected resource metadata', async () => {
    const client = new Client({ name: 'port-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${CLIENT}` } } }));
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('fx_echo');
    await client.close();
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const onManagement = await fetch(`${managementUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${CLIENT}` },
      body: JSON.stringify(init),
    });
    expect(onManagement.status).toBe(404);
    expect((await fetch(`${managementUrl}/sse`)).status).toBe(404);
    expect((await fetch(`${managementUrl}/.well-known/oauth-protected-resource/mcp`)).status).toBe(404);
    expect((await fetch(`${gw.url}/.well-known/oauth-protected-resource/mcp`)).status).toBe(200);
  });

  it('the session file records the management listener; `gateway status` probes it', async () => {
    const record = JSON.parse(readFileSync(join(dir, 'state', 'sessions', 'ports.json'), 'utf8'));
    expect(`http://${record.management_host}:${record.management_port}`).toBe(managementUrl);
    expect(`http://${record.host}:${record.port}`).toBe(gw.url);
    const status = await runBin(GATEWAY_BIN, ['status', '-o', 'json'], { env });
    expect(status.code, status.stderr).toBe(0);
    const [session] = JSON.parse(status.stdout).sessions;
    expect(session).toMatchObject({ name: 'ports', url: gw.url, management_url: managementUrl });
    expect(session.health).not.toBe('unreachable');
  });

  it('gateway-client and the TUI find the management API through the session', async () => {
    const list = await runBin(CLIENT_BIN, ['-o', 'json', 'backends', 'list'], { env });
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout).backends.map((b: { name: string }) => b.name)).toEqual(['fx']);
    const { active } = serverChoices({ file: { servers: [] }, env });
    expect(active.url).toBe(managementUrl);
  });
});
