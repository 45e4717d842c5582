/**
 * Issue 23: what happens to shared sessions when something fails. Redis
 * stopped and started again with its data; a replica killed (SIGKILL) mid-
 * session; a replica drained (SIGTERM); sessions expiring after
 * `session_ttl`; the cluster-wide session limit. Real `redis-server`, real
 * gateway processes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisServer } from '../../../helpers/redis-server.js';
import { Cluster } from '../../../helpers/cluster.js';
import { stdioFixture } from '../../../fixtures/fixture-backend.js';
import { waitFor } from '../../../helpers/wait.js';
import { managementClient } from '../../../helpers/management-client.js';
import { SseSession, textOf, tryInitialize, type Message } from '../../../helpers/sse-session.js';

const progressOf = (m: Message) => (m.method === 'notifications/progress' ? (m.params as { progress: number }).progress : undefined);

const ready = async (base: string) => (await managementClient(base).get('/ready')).body as { ready: boolean; reason: string };
const storeOf = async (base: string) => (await managementClient(base).get('/status')).body.replica.sessions_store as { status: string; reason?: string };
const events = async (base: string, stage: string) =>
  ((await managementClient(base).get('/events?limit=1000')).body as { events: Array<{ stage: string; message: string }> }).events.filter(
    (e) => e.stage === stage,
  );

describe('shared sessions when things fail', () => {
  let redis: RedisServer;
  let cluster: Cluster;
  let r1: string, r2: string, r3: string;

  beforeAll(async () => {
    redis = await RedisServer.start();
    cluster = await Cluster.start({
      redisUrl: redis.url,
      backends: { fx: stdioFixture(['--name', 'fx']) },
      server: { shutdown_timeout_s: 30, shutdown_drain_s: 4 },
    });
    [r1, r2, r3] = cluster.urls as [string, string, string];
  }, 120_000);
  afterAll(async () => {
    await cluster?.stopAll();
    await redis?.stop();
  });

  it('Redis down: the replicas stay ready, the store is degraded; 503 + Retry-After naming the session store (never 404, never a stack), cached sessions keep working; back with its data: nothing lost', async () => {
    const cachedHere = await SseSession.open(r1);
    const notCachedOnR2 = await SseSession.open(r1);
    await redis.stop({ save: true });

    await waitFor(async () => (await storeOf(r1)).status === 'degraded', 'the store degraded on r1');
    expect(await storeOf(r1)).toMatchObject({ type: 'redis', status: 'degraded', reason: expect.any(String) });
    // Serving what it holds: a balancer keeps it.
    expect(await ready(r1)).toEqual({
      ready: true,
      reason: '1 of 1 backends connected; session store (redis) unreachable: serving the sessions this replica holds',
    });
    await waitFor(async () => (await events(r1, 'store_degraded')).length > 0, 'a store_degraded event');

    const refused = await tryInitialize(r1);
    expect(refused.status).toBe(503);
    expect(refused.retryAfter).toMatch(/^\d+$/);
    expect(refused.body.error?.message).toMatch(/session store/i);
    expect(refused.body.error?.message).not.toMatch(/ECONNREFUSED|\n\s+at /);

    // Cached on r1: served without Redis.
    expect(textOf(await cachedHere.call(1, 'fx_echo', { text: 'still here' }, r1))).toContain('still here');
    // Unknown to r2, which cannot ask Redis: come back later (not 404, which would make the client start over).
    const unknownHere = await notCachedOnR2.post({ id: 1, method: 'tools/list' }, r2);
    expect(unknownHere.status).toBe(503);
    expect(unknownHere.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(JSON.stringify(unknownHere.json)).toMatch(/session store/i);

    await redis.launch();
    for (const base of [r1, r2, r3]) await waitFor(async () => (await storeOf(base)).status === 'ok', `${base} reaching the store again`, 30_000);
    expect((await ready(r1)).reason).toBe('1 of 1 backends connected');
    await waitFor(async () => (await events(r2, 'store_recovered')).length > 0, 'a store_recovered event');
    expect(textOf(await notCachedOnR2.call(2, 'fx_echo', { text: 'back' }, r2))).toContain('back');
    expect(textOf(await cachedHere.call(3, 'fx_echo', { text: 'and here' }, r3))).toContain('and here');
    expect((await tryInitialize(r1)).status).toBe(200);
  });

  it("what is published while a replica's subscriber is cut off reaches the GET stream it holds once the subscriber is back", async () => {
    const s = await SseSession.open(r1);
    const get = await s.get(undefined, r1);
    await get.until(() => get.events.length > 0, 'the priming event');
    // r2 learns the session and its level: its backend's log messages go to it too.
    await s.call(1, 'fx_echo', { text: 'hi' }, r2);
    expect((await (await s.post({ id: 2, method: 'logging/setLevel', params: { level: 'info' } }, r2)).answer(2)).result).toEqual({});
    const logged = (text: string) => get.messages.some((m) => m.method === 'notifications/message' && (m.params as { data: string }).data === text);
    const admin = redis.client();
    try {
      // No new connection is accepted, so r1's subscriber, once cut off, stays away until this is undone.
      const clients = (await admin.client('LIST')) as string;
      const subscriber = /id=(\d+) [^\n]*name=mcp-gateway:r1:subscriber/.exec(clients)?.[1];
      expect(subscriber).toBeDefined();
      await admin.config('SET', 'maxclients', String(clients.trim().split('\n').length - 1));
      await admin.client('KILL', 'ID', subscriber!);
      await waitFor(async () => (await storeOf(r1)).status === 'degraded', "r1's subscriber gone");
      const other = await SseSession.open(r2);
      await other.call(1, 'fx_log', { level: 'warning', message: 'while cut off' }, r2);
      // r2 appended it to the session's stream and published it; r1 heard nothing.
      const stream = `${cluster.keyPrefix}:events:${s.id}:g`;
      await waitFor(async () => JSON.stringify(await admin.xrange(stream, '-', '+')).includes('while cut off'), 'the message in the stream');
      expect(logged('while cut off')).toBe(false);
    } finally {
      await admin.config('SET', 'maxclients', '10000');
      admin.disconnect();
    }
    await get.until(() => logged('while cut off'), 'the message on the GET stream once the subscriber is back');
    get.drop();
  });

  it('a replica killed (SIGKILL) mid-session: its sessions go on elsewhere, only its running calls fail', async () => {
    const s = await SseSession.open(r3);
    await s.call(1, 'fx_echo', { text: 'on r3' }, r3);
    const running = await s.post(
      { id: 2, method: 'tools/call', params: { name: 'fx_slow', arguments: { steps: 50, delay_ms: 100 }, _meta: { progressToken: 'k' } } },
      r3,
    );
    await running.until(() => running.messages.some((m) => progressOf(m) === 1), 'the call to run on r3');
    await cluster.kill('r3');
    await running.whenEnded();
    expect(running.messages.some((m) => m.id === 2)).toBe(false);
    expect(textOf(await s.call(3, 'fx_echo', { text: 'on r1' }, r1))).toContain('on r1');
    expect(textOf(await s.call(4, 'fx_echo', { text: 'on r2' }, r2))).toContain('on r2');
    r3 = (await cluster.startReplica('r3')).url;
    expect(textOf(await s.call(5, 'fx_echo', { text: 'on the new r3' }, r3))).toContain('on the new r3');
  });

  it('SIGTERM drains a replica: not ready at once and still serving for shutdown_drain_s; then no new session, GET streams told to reconnect, running calls finish; its sessions stay', async () => {
    const s = await SseSession.open(r2);
    const get = await s.get(undefined, r3);
    await get.until(() => get.lastEventId, 'the GET stream on r3');
    // Runs well past the drain period, so r3 still listens (for it) once the drain is over.
    const running = await s.post(
      { id: 1, method: 'tools/call', params: { name: 'fx_slow', arguments: { steps: 20, delay_ms: 600 }, _meta: { progressToken: 'd' } } },
      r3,
    );
    await running.until(() => running.messages.some((m) => progressOf(m) === 1), 'the call to run on r3');
    const exited = cluster.replica('r3').process.stop(60_000);

    // A balancer sees 503 and takes r3 out; until it has, r3 serves everything as before.
    await waitFor(async () => (await ready(r3)).reason.startsWith('draining'), 'r3 draining');
    expect((await ready(r3)).ready).toBe(false);
    expect(textOf(await s.call(2, 'fx_echo', { text: 'while draining' }, r3))).toContain('while draining');
    expect((await tryInitialize(r3)).status).toBe(200);
    // Then the GET stream ends with a retry hint; the client resumes it on another replica.
    await get.whenEnded();
    expect(get.retry).toBeGreaterThan(0);
    const resumed = await s.get(get.lastEventId, r1);
    expect(resumed.status).toBe(200);
    // And no new session is taken.
    const refused = await tryInitialize(r3);
    expect(refused.status).toBe(503);
    expect(refused.retryAfter).toMatch(/^\d+$/);
    // The call running on r3 finishes there.
    expect(textOf(await running.answer(1))).toBe('done 20');
    expect((await exited).code).toBe(0);
    // The session lives on.
    expect(textOf(await s.call(3, 'fx_echo', { text: 'after the drain' }, r1))).toContain('after the drain');
    resumed.drop();
  });
});

describe('shared sessions: expiry and the cluster-wide limit', () => {
  let redis: RedisServer;
  let cluster: Cluster;
  let r1: string, r2: string;

  beforeAll(async () => {
    redis = await RedisServer.start();
    cluster = await Cluster.start({
      redisUrl: redis.url,
      replicas: 2,
      backends: { fx: stdioFixture(['--name', 'fx']) },
      server: { session_ttl: 2, max_sessions: 3 },
      sessions: { replay_s: 1 },
    });
    [r1, r2] = cluster.urls as [string, string];
  }, 120_000);
  afterAll(async () => {
    await cluster?.stopAll();
    await redis?.stop();
  });

  it('a session idle past session_ttl is gone on every replica; one used on either replica lives on', async () => {
    const idle = await SseSession.open(r1);
    await idle.call(1, 'fx_echo', { text: 'x' }, r2);
    const busy = await SseSession.open(r1);
    let n = 1;
    // Used alternately on each replica until the idle one has expired (the session list, which touches no session, says so).
    const sessionIds = async () => ((await managementClient(r1).get('/sessions')).body as { sessions: Array<{ id: string }> }).sessions.map((x) => x.id);
    await waitFor(
      async () => {
        await busy.call(n++, 'fx_echo', { text: 'ping' }, n % 2 ? r1 : r2);
        return !(await sessionIds()).includes(idle.id);
      },
      'the idle session to expire while the busy one is used',
      30_000,
    );
    for (const base of [r1, r2]) {
      await waitFor(async () => (await idle.post({ id: 100, method: 'tools/list' }, base)).status === 404, `the idle session gone from ${base}`);
    }
    expect(textOf(await busy.call(n, 'fx_echo', { text: 'alive' }, r2))).toContain('alive');
    const listed = (await managementClient(r1).get('/sessions')).body as { sessions: Array<{ id: string }> };
    expect(listed.sessions.map((x) => x.id)).toContain(busy.id);
    expect(listed.sessions.map((x) => x.id)).not.toContain(idle.id);
    expect(await busy.delete(r1)).toBe(200);
  });

  it('a dropped POST stream resumed on another replica within replay_s runs to its end; one nobody resumes is cancelled', async () => {
    const s = await SseSession.open(r1);
    const cancelled = async (id: number) => (JSON.parse(textOf(await s.call(id, 'fx_last_cancelled', {}, r1))) as { count: number }).count;
    const before = await cancelled(1);
    // Longer than replay_s: r1 would cancel it if it did not know that r2 carries the stream.
    const call = await s.post(
      { id: 2, method: 'tools/call', params: { name: 'fx_slow', arguments: { steps: 8, delay_ms: 300 }, _meta: { progressToken: 'r' } } },
      r1,
    );
    await call.until(() => call.messages.some((m) => progressOf(m) === 1), 'the call to start');
    call.drop();
    const resumed = await s.get(call.lastEventId, r2);
    expect(textOf(await resumed.answer(2))).toBe('done 8');
    expect(await cancelled(3)).toBe(before);

    const abandoned = await s.post(
      { id: 4, method: 'tools/call', params: { name: 'fx_slow', arguments: { steps: 50, delay_ms: 200 }, _meta: { progressToken: 'a' } } },
      r1,
    );
    await abandoned.until(() => abandoned.messages.some((m) => progressOf(m) === 1), 'the call to start');
    abandoned.drop();
    await waitFor(async () => (await cancelled(5 + Math.floor(Math.random() * 1e6))) > before, 'the unresumed call to be cancelled');
    await s.delete(r2);
  });

  it('server.max_sessions counts the sessions of the cluster', async () => {
    await waitFor(async () => ((await managementClient(r1).get('/sessions')).body as { sessions: unknown[] }).sessions.length === 0, 'no session left');
    const open = [await SseSession.open(r1), await SseSession.open(r2), await SseSession.open(r1)];
    const refused = await tryInitialize(r2);
    expect(refused.status).toBe(503);
    expect(refused.retryAfter).toMatch(/^\d+$/);
    expect(refused.body.error?.message).toMatch(/at most 3/);
    expect(await open[0]!.delete(r2)).toBe(200);
    expect((await tryInitialize(r2)).status).toBe(200);
  });
});
