/**
 * Issue 32, item 8: 2026-07-28 requests need no shared store. Two real
 * `gateway server` replicas with `sessions.store: memory` (nothing shared,
 * not even Redis) behind a real HAProxy that balances round-robin per
 * request, no stickiness: a v2 client pinned to 2026-07-28 lists, calls
 * (with progress), reads, gets prompts and completes through the balancer,
 * and both replicas served part of its requests (each one's
 * `GET /manage/v1/clients` counts what it saw).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startGatewayCli, type GatewayProcess } from '../../../helpers/gateway-cli.js';
import { Haproxy } from '../../../helpers/haproxy.js';
import { stdioFixture } from '../../../fixtures/fixture-backend.js';

const MGMT = 'stateless-replicas-management-token-0123456789';
const CLIENT_NAME = 'round-robin-client';

describe('2026-07-28 behind two replicas with no shared store', { timeout: 120_000 }, () => {
  const replicas: GatewayProcess[] = [];
  let proxy: Haproxy;
  let client: Client;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-stateless-replicas-'));
    const config = join(dir, 'config.yaml');
    writeFileSync(
      config,
      stringify({
        server: { host: '127.0.0.1', port: 0 },
        sessions: { store: 'memory' },
        audit: { enabled: false },
        containers: { enabled: false },
        backends: { fx: stdioFixture(['--name', 'fx']) },
      }),
    );
    for (const id of ['r1', 'r2']) {
      replicas.push(
        await startGatewayCli({
          args: ['--config', config, '--name', `stateless-${id}`],
          cwd: dir,
          env: { ...process.env, GATEWAY_REPLICA_ID: id, GATEWAY_MGMT_TOKEN: MGMT, GATEWAY_STATE_DIR: join(dir, `state-${id}`) },
        }),
      );
    }
    proxy = await Haproxy.start(replicas.map((r) => r.url));
    await proxy.allUp(2, 30_000, MGMT);
    client = new Client({ name: CLIENT_NAME, version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp`)));
  }, 120_000);

  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await proxy?.stop();
    await Promise.all(replicas.map((r) => r.stop()));
  });

  it('serves a pinned 2026-07-28 client completely, whichever replica each request reaches', async () => {
    expect(client.getProtocolEra()).toBe('modern');
    for (let i = 0; i < 4; i++) {
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain('fx_add');
      const sum = await client.callTool({ name: 'fx_add', arguments: { a: i, b: 2 } });
      expect(sum.content).toEqual([{ type: 'text', text: String(i + 2) }]);
    }
    const progress: number[] = [];
    const slow = await client.callTool({ name: 'fx_slow', arguments: { steps: 3, delay_ms: 20 } }, { onprogress: (p) => progress.push(p.progress) });
    expect(slow.isError).not.toBe(true);
    expect(progress.length).toBeGreaterThan(0);
    const read = await client.readResource({ uri: 'fixture://fx/info' });
    expect(read.contents[0]).toMatchObject({ uri: 'fixture://fx/info', text: 'info from fx' });
    const prompt = await client.getPrompt({ name: 'fx_greet', arguments: { name: 'Ada' } });
    expect(JSON.stringify(prompt.messages)).toContain('Ada');
  });

  it('both replicas answered part of it, each counting what it saw, with no session anywhere', async () => {
    const seen = await Promise.all(
      replicas.map(async (r) => {
        const headers = { authorization: `Bearer ${MGMT}` };
        const clients = (await (await fetch(`${r.url}/manage/v1/clients`, { headers })).json()) as {
          clients: Array<{ name: string; requests: number; replica: string; protocol_version: string }>;
        };
        const sessions = (await (await fetch(`${r.url}/manage/v1/sessions`, { headers })).json()) as { active_sessions: number };
        return { mine: clients.clients.find((c) => c.name === CLIENT_NAME), sessions: sessions.active_sessions };
      }),
    );
    for (const [i, s] of seen.entries()) {
      expect(s.mine, `replica r${i + 1} saw no request of the client`).toMatchObject({ replica: `r${i + 1}`, protocol_version: '2026-07-28' });
      expect(s.mine!.requests).toBeGreaterThan(0);
      expect(s.sessions).toBe(0);
    }
  });
});
