/**
 * Issue 31 §5 and §6: readiness a balancer can trust. Two replicas behind a
 * real HAProxy whose health check is GET /manage/v1/ready (every 200 ms): a
 * Redis outage takes no replica out (each serves the sessions it holds); a
 * replica stopped with SIGTERM keeps serving until the balancer has taken it
 * out, so a client calling through the balancer sees no failure. And a
 * replica started while Redis is down starts, is not ready and says why,
 * and becomes ready once Redis is there, without a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisServer } from '../../../helpers/redis-server.js';
import { Cluster, startClusterBed, type ClusterBed } from '../../../helpers/cluster.js';
import type { Haproxy } from '../../../helpers/haproxy.js';
import { stdioFixture } from '../../../fixtures/fixture-backend.js';
import { waitFor } from '../../../helpers/wait.js';
import { managementClient } from '../../../helpers/management-client.js';
import { SseSession, textOf, tryInitialize } from '../../../helpers/sse-session.js';

const ready = async (base: string) => managementClient(base).get('/ready');
const storeOf = async (base: string) => (await managementClient(base).get('/status')).body.replica.sessions_store as { status: string; reason?: string };
const stages = async (base: string) =>
  ((await managementClient(base).get('/events?limit=1000')).body as { events: Array<{ stage: string }> }).events.map((e) => e.stage);

describe('two replicas behind a balancer that checks GET /ready', () => {
  let bed: ClusterBed;
  let redis: RedisServer;
  let cluster: Cluster;
  let proxy: Haproxy;

  beforeAll(async () => {
    bed = await startClusterBed({ replicas: 2, balancer: true, backends: { fx: stdioFixture(['--name', 'fx']) }, server: { shutdown_drain_s: 2 } });
    ({ redis, cluster } = bed);
    proxy = bed.proxy!;
  }, 120_000);
  afterAll(async () => {
    await bed?.stop();
  });

  it('a Redis outage takes no replica out: the sessions each one holds are served through the balancer', async () => {
    const s = await SseSession.open(proxy.url);
    let n = 1;
    // Each replica holds the session (it served it once).
    for (const base of cluster.urls) await s.call(n++, 'fx_echo', { text: 'hold me' }, base);
    await redis.stop({ save: true });
    try {
      for (const base of cluster.urls) await waitFor(async () => (await storeOf(base)).status === 'degraded', `the store degraded on ${base}`);
      for (const base of cluster.urls) expect((await ready(base)).status).toBe(200);
      // Many health checks long: every call through the balancer is served (a replica taken out would leave 503s).
      const until = Date.now() + 2000;
      while (Date.now() < until) expect(textOf(await s.call(n++, 'fx_echo', { text: 'during the outage' }))).toContain('during the outage');
      // No check saw a 503 (a check that timed out on a loaded machine is another matter).
      expect(proxy.log).not.toMatch(/is DOWN, reason: Layer7 wrong status/);
    } finally {
      await redis.launch();
    }
    for (const base of cluster.urls) await waitFor(async () => (await storeOf(base)).status === 'ok', `${base} reaching Redis again`, 30_000);
  });

  it('SIGTERM: the replica keeps serving until the balancer has taken it out; clients calling through the balancer see no failure', async () => {
    const [, r2] = cluster.urls as [string, string];
    const s = await SseSession.open(proxy.url);
    let n = 1;
    for (const base of cluster.urls) await s.call(n++, 'fx_echo', { text: 'hold me' }, base);
    let exited = false;
    const stopped = cluster.replica('r2').process.stop(30_000);
    void stopped.then(() => (exited = true));
    // Three clients call through the balancer until r2 is gone: requests keep reaching r2 while it stops.
    const clients = [0, 1, 2].map(async (c) => {
      let served = 0;
      for (let i = 0; !exited; i++) {
        const id = 1000 * (c + 1) + i;
        expect(textOf(await s.call(id, 'fx_echo', { text: `client ${c}` }))).toContain(`client ${c}`);
        served++;
      }
      return served;
    });
    const calling = Promise.all(clients);
    calling.catch(() => undefined); // awaited below; a failure must not go unhandled if a step before fails first
    // Not ready at once, and still serving what reaches it directly (the balancer has not seen the 503 yet).
    await waitFor(async () => (await ready(r2).catch(() => undefined))?.status === 503, 'r2 not ready');
    expect(textOf(await s.call(n, 'fx_echo', { text: 'straight to r2' }, r2))).toContain('straight to r2');
    const served = await calling;
    expect((await stopped).code).toBe(0);
    for (const count of served) expect(count).toBeGreaterThan(0);
    expect(proxy.log).toMatch(/r2 is DOWN/);
  });
});

describe('a replica started while Redis is down', () => {
  let redis: RedisServer;
  let cluster: Cluster;

  beforeAll(async () => {
    // A port where no Redis answers yet.
    redis = await RedisServer.start();
    await redis.stop();
    cluster = await Cluster.start({ redisUrl: redis.url, replicas: 1, backends: { fx: stdioFixture(['--name', 'fx']) } });
  }, 120_000);
  afterAll(async () => {
    await cluster?.stopAll();
    await redis?.stop();
  });

  it('starts not ready and says why; becomes ready when Redis is back, without a restart', async () => {
    const [base] = cluster.urls as [string];
    const notReady = await ready(base);
    expect(notReady.status).toBe(503);
    expect(notReady.body.reason).toMatch(/^session store \(redis\) not reached yet: /);
    expect(await storeOf(base)).toMatchObject({ status: 'unavailable', reason: expect.any(String) });
    expect(await stages(base)).toContain('store_unavailable');
    const refused = await tryInitialize(base);
    expect(refused.status).toBe(503);
    expect(refused.retryAfter).toMatch(/^\d+$/);

    await redis.launch();
    await waitFor(async () => (await ready(base)).status === 200, 'ready once Redis is there', 30_000);
    expect((await ready(base)).body.reason).toBe('1 of 1 backends connected');
    expect(await stages(base)).toContain('store_recovered');
    const s = await SseSession.open(base);
    expect(textOf(await s.call(1, 'fx_echo', { text: 'served' }))).toContain('served');
  });
});
