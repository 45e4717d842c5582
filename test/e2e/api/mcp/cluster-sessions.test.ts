/**
 * Issue 23: three gateway replicas (real processes) sharing sessions
 * through a real Redis. Requests are sent to chosen replicas, so each case
 * proves a request crossed replicas: any replica serves any request of any
 * session with its own backends; a client's answer, a cancellation and a
 * DELETE reach the replica they concern; notifications reach the GET stream
 * wherever it is held; streams resume on another replica.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisServer } from '../../../helpers/redis-server.js';
import { Cluster } from '../../../helpers/cluster.js';
import { stdioFixture } from '../../../fixtures/fixture-backend.js';
import { waitFor } from '../../../helpers/wait.js';
import { managementClient } from '../../../helpers/management-client.js';
import { SseSession, textOf, type Message } from '../../../helpers/sse-session.js';

const progressOf = (m: Message) => (m.method === 'notifications/progress' ? (m.params as { progress: number }).progress : undefined);

describe('sessions shared by three replicas through Redis', () => {
  let redis: RedisServer;
  let cluster: Cluster;
  let r1: string, r2: string, r3: string;

  beforeAll(async () => {
    redis = await RedisServer.start();
    cluster = await Cluster.start({ redisUrl: redis.url, backends: { fx: stdioFixture(['--name', 'fx']) } });
    [r1, r2, r3] = cluster.urls as [string, string, string];
  }, 60_000);
  afterAll(async () => {
    await cluster?.stopAll();
    await redis?.stop();
  });

  const whoami = async (s: SseSession, id: number, base: string) => (JSON.parse(textOf(await s.call(id, 'fx_whoami', {}, base))) as { pid: number }).pid;
  const cancelledCount = async (s: SseSession, id: number, base: string) =>
    (JSON.parse(textOf(await s.call(id, 'fx_last_cancelled', {}, base))) as { count: number }).count;

  it('any replica serves any request of a session, each with its own backend', async () => {
    const s = await SseSession.open(r1);
    const pids = [await whoami(s, 1, r1), await whoami(s, 2, r2), await whoami(s, 3, r3)];
    expect(new Set(pids).size).toBe(3);
    const list = await (await s.post({ id: 4, method: 'tools/list' }, r3)).answer(4);
    expect((list.result as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toContain('fx_echo');
    // Back on a replica that already knows it (cached there now).
    expect(textOf(await s.call(5, 'fx_echo', { text: 'again' }, r2))).toContain('again');
  });

  it('an unknown session is 404 on every replica', async () => {
    for (const base of [r1, r2, r3]) {
      const res = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'no-such-session' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: { code: -32001 } });
    }
  });

  it('GET /status names the replica and its store; GET /sessions lists the cluster with the replica that last served each', async () => {
    const status = await managementClient(r2).get('/status');
    expect(status.body.replica).toEqual({ id: 'r2', sessions_store: { type: 'redis', status: 'ok' } });
    const s = await SseSession.open(r1);
    await s.call(1, 'fx_echo', { text: 'x' }, r3);
    // r3 writes its activity back within a few seconds; every replica lists the same sessions.
    await waitFor(async () => {
      const listed = (await managementClient(r2).get('/sessions')).body as { sessions: Array<{ id: string; replica: string }> };
      return listed.sessions.find((x) => x.id === s.id)?.replica === 'r3';
    }, 'r3 as the replica that last served the session');
    const fromR1 = (await managementClient(r1).get('/sessions')).body as { active_sessions: number; sessions: Array<{ id: string; client_name: string }> };
    expect(fromR1.sessions.find((x) => x.id === s.id)).toMatchObject({ client_name: 'sse-test-client', transport_type: 'streamable-http', expired: false });
  });

  it('DELETE on one replica ends the session for every replica', async () => {
    const s = await SseSession.open(r1);
    await s.call(1, 'fx_echo', { text: 'cache me' }, r3);
    expect(await s.delete(r2)).toBe(200);
    for (const base of [r1, r3]) {
      await waitFor(async () => (await s.post({ id: 2, method: 'tools/list' }, base)).status === 404, `404 from ${base}`);
    }
  });

  it("a client's answer to a sampling request reaches the replica that asked, wherever it lands", async () => {
    const s = await SseSession.open(r1);
    const call = await s.post({ id: 1, method: 'tools/call', params: { name: 'fx_sample', arguments: { prompt: 'hello?' } } }, r1);
    const request = await call.until(() => call.messages.find((m) => m.method === 'sampling/createMessage'), 'the sampling request');
    // The id names the replica that sent it.
    expect(typeof request.id).toBe('string');
    const status = await s.notify({ id: request.id, result: { role: 'assistant', content: { type: 'text', text: 'from r2' }, model: 'test' } }, r2);
    expect(status).toBe(202);
    expect(textOf(await call.answer(1))).toBe('sampled: from r2');
  });

  it('notifications/cancelled sent to another replica cancels the call where it runs', async () => {
    const s = await SseSession.open(r1);
    const before = await cancelledCount(s, 1, r1);
    const call = await s.post(
      { id: 2, method: 'tools/call', params: { name: 'fx_slow', arguments: { steps: 100, delay_ms: 100 }, _meta: { progressToken: 'c' } } },
      r1,
    );
    await call.until(() => call.messages.some((m) => progressOf(m) === 1), 'the call to start');
    expect(await s.notify({ method: 'notifications/cancelled', params: { requestId: 2, reason: 'test' } }, r3)).toBe(202);
    await waitFor(async () => (await cancelledCount(s, 10 + Math.floor(Math.random() * 1e6), r1)) > before, "r1's backend to see the cancellation");
  });

  it('a POST stream dropped on one replica resumes on another: the missed events, the answer, no cancellation', async () => {
    const s = await SseSession.open(r1);
    const before = await cancelledCount(s, 1, r1);
    const call = await s.post(
      { id: 2, method: 'tools/call', params: { name: 'fx_slow', arguments: { steps: 5, delay_ms: 150 }, _meta: { progressToken: 'p' } } },
      r1,
    );
    await call.until(() => call.messages.some((m) => progressOf(m) === 1), 'the first progress');
    const seen = call.messages.map(progressOf).filter((p) => p !== undefined);
    const lastId = call.lastEventId!;
    call.drop();
    const resumed = await s.get(lastId, r2);
    expect(resumed.status).toBe(200);
    expect(textOf(await resumed.answer(2))).toBe('done 5');
    await resumed.whenEnded();
    expect([...seen, ...resumed.messages.map(progressOf).filter((p) => p !== undefined)]).toEqual([1, 2, 3, 4, 5]);
    expect(await cancelledCount(s, 3, r1)).toBe(before);
  });

  it("log messages reach a session's GET stream on the replica holding it; a subscription made elsewhere is delivered there", async () => {
    const s = await SseSession.open(r1);
    const get = await s.get(undefined, r1);
    expect(get.status).toBe(200);
    await get.until(() => get.events.length > 0, 'the priming event');
    // r2 learns the session (a call there), and its level from r3.
    await s.call(1, 'fx_echo', { text: 'hi' }, r2);
    expect((await (await s.post({ id: 2, method: 'logging/setLevel', params: { level: 'info' } }, r3)).answer(2)).result).toEqual({});
    // Another session makes r2's backend log: r2 tells every session it knows, ours through its stream on r1.
    const other = await SseSession.open(r2);
    await other.call(1, 'fx_log', { level: 'warning', message: 'seen by everyone' }, r2);
    await get.until(
      () => get.messages.find((m) => m.method === 'notifications/message' && (m.params as { data: string }).data === 'seen by everyone'),
      'the log message on the GET stream held by r1',
    );
    // Subscribed through r3; the replica holding the GET stream (r1) subscribes its backend and delivers the update.
    const uri = 'fixture://fx/info';
    expect((await (await s.post({ id: 3, method: 'resources/subscribe', params: { uri } }, r3)).answer(3)).result).toEqual({});
    await waitFor(
      async () => textOf(await s.call(4 + Math.floor(Math.random() * 1e6), 'fx_touch', { uri }, r1)) === `updated ${uri}`,
      "r1's backend subscribed",
    );
    await get
      .until(
        () => get.messages.find((m) => m.method === 'notifications/resources/updated' && (m.params as { uri: string }).uri === uri),
        'the resource update on the GET stream',
      )
      .catch((e) => {
        console.log(JSON.stringify(get.events), cluster.replica('r1').process.stdout().slice(-6000));
        throw e;
      });
    get.drop();
  });

  it('a GET stream dropped on one replica resumes on another with Last-Event-ID: what was sent meanwhile is replayed', async () => {
    const s = await SseSession.open(r1);
    const get = await s.get(undefined, r1);
    await get.until(() => get.lastEventId, 'an event id');
    const lastId = get.lastEventId!;
    get.drop();
    await s.call(1, 'fx_echo', { text: 'known here' }, r2);
    const other = await SseSession.open(r2);
    await other.call(1, 'fx_log', { level: 'error', message: 'while away' }, r2);
    const resumed = await s.get(lastId, r3);
    expect(resumed.status).toBe(200);
    await resumed.until(
      () => resumed.messages.find((m) => m.method === 'notifications/message' && (m.params as { data: string }).data === 'while away'),
      'the replayed log message',
    );
    resumed.drop();
  });
});
