/**
 * Issue 23: three replicas behind a real HAProxy (round-robin per request,
 * no stickiness) sharing sessions through a real Redis. An SDK client
 * through the balancer sees one gateway; 1,000 sessions spread over the
 * replicas, and the Redis memory they take is reported.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Changes } from '../../../helpers/changes.js';
import { SseSession } from '../../../helpers/sse-session.js';
import PQueue from 'p-queue';
import { RedisServer } from '../../../helpers/redis-server.js';
import { Cluster } from '../../../helpers/cluster.js';
import { Haproxy } from '../../../helpers/haproxy.js';
import { stdioFixture } from '../../../fixtures/fixture-backend.js';
import { waitFor } from '../../../helpers/wait.js';
import { managementClient } from '../../../helpers/management-client.js';

const SESSIONS = 1000;

describe('three replicas behind a round-robin balancer', () => {
  let redis: RedisServer;
  let cluster: Cluster;
  let balancer: Haproxy;

  beforeAll(async () => {
    redis = await RedisServer.start();
    cluster = await Cluster.start({ redisUrl: redis.url, backends: { fx: stdioFixture(['--name', 'fx']) }, server: { max_sessions: 5000 } });
    balancer = await Haproxy.start(cluster.urls);
    // Every replica passes the balancer's health check before the tests use it.
    await waitFor(async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 6; i++) ids.add((await managementClient(balancer.url).get('/status')).body.replica?.id);
      return ids.size === 3;
    }, 'the balancer to reach all three replicas');
  }, 90_000);
  afterAll(async () => {
    await balancer?.stop();
    await cluster?.stopAll();
    await redis?.stop();
  });

  it('an SDK client through the balancer: lists, calls, a sampling round trip, the GET stream', async () => {
    const client = new Client({ name: 'through-the-balancer', version: '1.0.0' }, { capabilities: { sampling: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', content: { type: 'text', text: 'balanced' }, model: 'test' }));
    await client.connect(new StreamableHTTPClientTransport(new URL(`${balancer.url}/mcp`)));
    try {
      const served = new Set<number>();
      for (let i = 0; i < 6; i++) {
        const result = await client.callTool({ name: 'fx_whoami', arguments: {} });
        served.add((JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as { pid: number }).pid);
      }
      // Round-robin: the calls ran on every replica, each with its own backend.
      expect(served.size).toBe(3);
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('fx_sample');
      for (let i = 0; i < 3; i++) {
        const sampled = await client.callTool({ name: 'fx_sample', arguments: { prompt: 'hi' } });
        expect((sampled.content as Array<{ text: string }>)[0]!.text).toBe('sampled: balanced');
      }
      // Another client makes whichever replica it lands on log: that replica knows our session (it served it)
      // and sends the message to its GET stream, held by whichever replica the client's GET landed on.
      const logged: string[] = [];
      const changes = new Changes();
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        logged.push(String(n.params.data));
        changes.notify();
      });
      const other = await SseSession.open(balancer.url);
      await other.call(1, 'fx_log', { level: 'warning', message: 'to every session' });
      await changes.until(() => logged.includes('to every session'), 'the log message on the GET stream');
    } finally {
      await client.close();
    }
  });

  it(`${SESSIONS} sessions spread over the replicas; the Redis memory per session`, async () => {
    const inspect = redis.client();
    const memory = async () => Number(/used_memory:(\d+)/.exec(await inspect.info('memory'))![1]);
    const before = await memory();
    const queue = new PQueue({ concurrency: 16 });
    const ids = await Promise.all(
      Array.from({ length: SESSIONS }, (_, i) =>
        queue.add(async () => {
          const res = await fetch(`${balancer.url}/mcp`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: 0,
              method: 'initialize',
              params: { protocolVersion: '2025-11-25', capabilities: { sampling: {} }, clientInfo: { name: `client-${i}`, version: '1.0.0' } },
            }),
          });
          await res.text();
          expect(res.status).toBe(200);
          return res.headers.get('mcp-session-id')!;
        }),
      ),
    );
    const after = await memory();
    const perSession = (after - before) / SESSIONS;
    console.log(`Redis memory for ${SESSIONS} sessions: ${after - before} bytes, ${Math.round(perSession)} bytes per session`);
    inspect.disconnect();
    expect(new Set(ids).size).toBe(SESSIONS);

    const listed = (await managementClient(balancer.url).get('/sessions')).body as {
      active_sessions: number;
      sessions: Array<{ id: string; replica: string }>;
    };
    const ours = listed.sessions.filter((s) => ids.includes(s.id));
    expect(ours).toHaveLength(SESSIONS);
    const byReplica = new Map<string, number>();
    for (const s of ours) byReplica.set(s.replica, (byReplica.get(s.replica) ?? 0) + 1);
    console.log(`sessions by replica: ${JSON.stringify(Object.fromEntries(byReplica))}`);
    // Round-robin with no stickiness: every replica made a share of them.
    expect([...byReplica.keys()].sort()).toEqual(['r1', 'r2', 'r3']);
    for (const count of byReplica.values()) expect(count).toBeGreaterThan(SESSIONS / 6);
    // A record is small: a few hundred bytes of fields, the index entry and Redis' own overhead.
    expect(perSession).toBeLessThan(4096);
  });
});
