/**
 * Issue 32, item 7: behind several replicas a 2026-07-28 listen stream hears
 * list changes whichever replica caused them. Two gateway replicas (real
 * processes, each with its own stdio backend process) share a real Redis; a
 * client listens on replica A while the changes are made through replica B:
 * - a tool added at B's backend process (only B's route table changes), then
 *   a reconnect of that backend through B's management API (B's new process
 *   no longer has it; A's table again does not change);
 * - a new tool approved through B's management API (definition pins are
 *   shared: every replica's table changes).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { RedisServer } from '../../../helpers/redis-server.js';
import { Cluster } from '../../../helpers/cluster.js';
import { managementClient } from '../../../helpers/management-client.js';
import { waitFor } from '../../../helpers/wait.js';
import { fixtureCommand } from '../../../fixtures/spawn.js';
import type { DefinitionsFile } from '../../../fixtures/definitions-file.js';

const MODERN = '2026-07-28';
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const READ_FILE = { name: 'read_file', description: 'Reads a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } };
const FRESH = { name: 'fresh', description: 'Came with an update', inputSchema: { type: 'object', properties: {} } };

/** A listen stream's tools list changes, as its client received them. */
interface ToolsListen {
  changes: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

describe('listen streams across replicas (sessions.store: redis)', () => {
  let redis: RedisServer;
  const clusters: Cluster[] = [];
  const clients: Client[] = [];

  async function modernClient(base: string): Promise<Client> {
    const client = new Client({ name: 'cluster-listen', version: '2.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    clients.push(client);
    return client;
  }

  async function listenForTools(client: Client): Promise<ToolsListen> {
    const changes: Array<Record<string, unknown>> = [];
    client.setNotificationHandler('notifications/tools/list_changed', (n) => void changes.push((n.params ?? {}) as Record<string, unknown>));
    const sub = await client.listen({ toolsListChanged: true });
    return { changes, close: () => sub.close() };
  }

  async function startCluster(args: string[] = [], security?: Record<string, unknown>): Promise<[string, string]> {
    const f = fixtureCommand(['--name', 'fx', ...args]);
    const cluster = await Cluster.start({ redisUrl: redis.url, replicas: 2, backends: { fx: { type: 'stdio', command: f.command, args: f.args } }, security });
    clusters.push(cluster);
    return cluster.urls as [string, string];
  }

  const toolNames = async (client: Client) => (await client.listTools({}, { cacheMode: 'bypass' })).tools.map((t) => t.name);

  beforeAll(async () => {
    redis = await RedisServer.start();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await Promise.all(clusters.map((c) => c.stopAll()));
    await redis?.stop();
  });

  it('list changes only replica B sees reach a listen stream on replica A', { timeout: 90_000 }, async () => {
    const [a, b] = await startCluster();
    const onA = await modernClient(a);
    const onB = await modernClient(b);
    const listen = await listenForTools(onA);

    expect((await onB.callTool({ name: 'fx_add_tool', arguments: { name: 'fresh' } })).isError).toBeFalsy();
    // Only B's backend process has the new tool: A's own table never changes.
    await waitFor(async () => (await toolNames(onB)).includes('fx_fresh'), 'fx_fresh on replica B');
    expect(await toolNames(onA)).not.toContain('fx_fresh');
    await waitFor(() => listen.changes.length > 0, "replica B's new tool on replica A's listen stream", 20_000);
    expect((listen.changes[0]!._meta as Record<string, unknown>)[SUBSCRIPTION_ID]).toBeDefined();

    // A management action on B: its backend starts again, without the tool it was given.
    const told = listen.changes.length;
    expect((await managementClient(b).post('/reconnect/fx')).status).toBe(200);
    await waitFor(async () => !(await toolNames(onB)).includes('fx_fresh'), 'fx_fresh gone on replica B', 20_000);
    await waitFor(() => listen.changes.length > told, "replica B's reconnect on replica A's listen stream", 20_000);
    await listen.close();
  });

  it('a new tool approved through replica B reaches a listen stream on replica A', { timeout: 90_000 }, async () => {
    const defsPath = join(mkdtempSync(join(tmpdir(), 'gw-cluster-listen-')), 'definitions.json');
    const writeDefs = (d: DefinitionsFile) => writeFileSync(defsPath, JSON.stringify(d));
    writeDefs({ tools: [READ_FILE] });
    const [a, b] = await startCluster(['--definitions', defsPath], { tool_pinning: { mode: 'warn', new_tools: 'quarantine' } });
    const onA = await modernClient(a);
    // A package update: each replica's backend comes back with one more tool, and each holds it back as new.
    writeDefs({ tools: [READ_FILE, FRESH] });
    for (const base of [a, b]) expect((await managementClient(base).post('/reconnect/fx')).status).toBe(200);
    const pendingOn = (base: string) => async () =>
      ((await managementClient(base).get('/tools/pending')).body as { pending: Array<{ name: string; hash: string }> }).pending.find(
        (p) => p.name === 'fx_fresh',
      );
    const pending = await waitFor(pendingOn(b), 'fx_fresh pending on replica B', 20_000);
    await waitFor(pendingOn(a), 'fx_fresh pending on replica A', 20_000);
    const listen = await listenForTools(onA);

    expect((await managementClient(b).post('/tools/fx_fresh/approve', { hash: pending.hash })).status).toBe(200);
    await waitFor(() => listen.changes.length > 0, 'the approval on replica A’s listen stream', 20_000);
    await waitFor(async () => (await toolNames(onA)).includes('fx_fresh'), 'fx_fresh served by replica A');
    await listen.close();
  });
});
