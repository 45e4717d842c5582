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
import { SseSession, textOf, type Message } from '../../../helpers/sse-session.js';

const progressOf = (m: Message) => (m.method === 'notifications/progress' ? (m.params as { progress: number }).progress : undefined);

const INIT_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'late', version: '1' } },
});
const MCP = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function initialize(base: string) {
  const res = await fetch(`${base}/mcp`, { method: 'POST', headers: MCP, body: INIT_BODY });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as { error?: { code: number; message: string } } };
}

const ready = async (base: string) => (await managementClient(base).get('/ready')).body as { ready: boolean; reason: string };
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
    cluster = await Cluster.start({ redisUrl: redis.url, backends: { fx: stdioFixture(['--name', 'fx']) }, server: { shutdown_timeout_s: 20 } });
    [r1, r2, r3] = cluster.urls as [string, string, string];
  }, 60_000);
  afterAll(async () => {
    await cluster?.stopAll();
    await redis?.stop();
  });

  it('Redis down: 503 + Retry-After naming the session store (never 404, never a stack), cached sessions keep working; back with its data: nothing lost', async () => {
    const cachedHere = await SseSession.open(r1);
    const notCachedOnR2 = await SseSession.open(r1);
    await redis.stop({ save: true });

    await waitFor(async () => !(await ready(r1)).ready, 'r1 not ready');
    expect((await ready(r1)).reason).toMatch(/session store/);
    expect((await managementClient(r1).get('/status')).body.replica.sessions_store).toEqual({ type: 'redis', status: 'unavailable' });
    await waitFor(async () => (await events(r1, 'store_unavailable')).length > 0, 'a store_unavailable event');

    const refused = await initialize(r1);
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
    for (const base of [r1, r2, r3]) await waitFor(async () => (await ready(base)).ready, `${base} ready again`, 30_000);
    await waitFor(async () => (await events(r2, 'store_recovered')).length > 0, 'a store_recovered event');
    expect(textOf(await notCachedOnR2.call(2, 'fx_echo', { text: 'back' }, r2))).toContain('back');
    expect(textOf(await cachedHere.call(3, 'fx_echo', { text: 'and here' }, r3))).toContain('and here');
    expect((await initialize(r1)).status).toBe(200);
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

  it('SIGTERM drains a replica: not ready at once, no new session, GET streams told to reconnect, running calls finish; its sessions stay', async () => {
    const s = await SseSession.open(r2);
    const get = await s.get(undefined, r3);
    await get.until(() => get.lastEventId, 'the GET stream on r3');
    const running = await s.post(
      { id: 1, method: 'tools/call', params: { name: 'fx_slow', arguments: { steps: 8, delay_ms: 250 }, _meta: { progressToken: 'd' } } },
      r3,
    );
    await running.until(() => running.messages.some((m) => progressOf(m) === 1), 'the call to run on r3');
    const exited = cluster.replica('r3').process.stop(30_000);

    // The listener stays open: a balancer sees 503 and takes r3 out.
    await waitFor(async () => (await ready(r3)).reason.startsWith('draining'), 'r3 draining');
    expect((await ready(r3)).ready).toBe(false);
    const refused = await initialize(r3);
    expect(refused.status).toBe(503);
    expect(refused.retryAfter).toMatch(/^\d+$/);
    // The GET stream ends with a retry hint; the client resumes it on another replica.
    await get.whenEnded();
    expect(get.retry).toBeGreaterThan(0);
    const resumed = await s.get(get.lastEventId, r1);
    expect(resumed.status).toBe(200);
    // The call running on r3 finishes there.
    expect(textOf(await running.answer(1))).toBe('done 8');
    expect((await exited).code).toBe(0);
    // The session lives on.
    expect(textOf(await s.call(2, 'fx_echo', { text: 'after the drain' }, r1))).toContain('after the drain');
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
  }, 60_000);
  afterAll(async () => {
    await cluster?.stopAll();
    await redis?.stop();
  });

  it('a session idle past session_ttl is gone on every replica; one used on either replica lives on', async () => {
    const idle = await SseSession.open(r1);
    await idle.call(1, 'fx_echo', { text: 'x' }, r2);
    const busy = await SseSession.open(r1);
    const started = Date.now();
    let n = 1;
    // Used every half second, alternately on each replica, for longer than the TTL.
    while (Date.now() - started < 3500) {
      await busy.call(n++, 'fx_echo', { text: 'ping' }, n % 2 ? r1 : r2);
      await new Promise((r) => setTimeout(r, 500));
    }
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
    const refused = await initialize(r2);
    expect(refused.status).toBe(503);
    expect(refused.retryAfter).toMatch(/^\d+$/);
    expect(refused.body.error?.message).toMatch(/at most 3/);
    expect(await open[0]!.delete(r2)).toBe(200);
    expect((await initialize(r2)).status).toBe(200);
  });
});
