/**
 * Issue 27 with issue 23: with the Redis session store a rate_limiter's
 * counts are the cluster's. Two gateway replicas (real processes) and a real
 * Redis; calls spread over both replicas share one count, and the call over
 * the limit is refused with retry_after_s whichever replica takes it.
 * Redis away: the limiter fails as a plugin does (by default the call goes on).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisServer } from '../../../helpers/redis-server.js';
import { Cluster } from '../../../helpers/cluster.js';
import { stdioFixture } from '../../../fixtures/fixture-backend.js';
import { waitFor } from '../../../helpers/wait.js';
import { managementClient } from '../../../helpers/management-client.js';
import { SseSession, textOf, type Message } from '../../../helpers/sse-session.js';

const LIMIT = 3;

describe('rate_limiter counts shared by two replicas through Redis', () => {
  let redis: RedisServer;
  let cluster: Cluster;
  let r1: string, r2: string;

  beforeAll(async () => {
    redis = await RedisServer.start();
    cluster = await Cluster.start({
      redisUrl: redis.url,
      replicas: 2,
      backends: { fx: stdioFixture(['--name', 'fx']) },
      // A window far longer than the test: no call is let through by a window's end.
      plugins: [{ name: 'rate_limiter', settings: { max_requests: LIMIT, window_s: 600, per: 'session' }, conditions: { tools: ['fx_echo'] } }],
    });
    [r1, r2] = cluster.urls as [string, string];
  }, 60_000);
  afterAll(async () => {
    await cluster?.stopAll();
    await redis?.stop();
  });

  const refusal = (answer: Message) => (answer.error as { data?: { error: string; per: string; retry_after_s: number } } | undefined)?.data;

  it.each([
    ['r1', 0],
    ['r2', 1],
  ])('the call over the limit is refused on %s too, with retry_after_s', async (_name, last) => {
    const s = await SseSession.open(r1);
    const bases = [r1, r2];
    // The limit's calls alternate between the replicas: neither sees all of them.
    for (let i = 0; i < LIMIT; i++) {
      const answer = await s.call(i + 1, 'fx_echo', { text: `call ${i}` }, bases[(i + last + 1) % 2]);
      expect(answer.error, cluster.logs()).toBeUndefined();
      expect(textOf(answer)).toContain(`call ${i}`);
    }
    for (const base of [bases[last], bases[1 - last]]) {
      const refused = refusal(await s.call(10 + bases.indexOf(base), 'fx_echo', { text: 'one too many' }, base));
      expect(refused, `refused at ${base}`).toMatchObject({ error: 'rate_limited', per: 'session' });
      expect(refused!.retry_after_s).toBeGreaterThanOrEqual(1);
      expect(refused!.retry_after_s).toBeLessThanOrEqual(600);
    }
  });

  // Last: it stops Redis.
  it('Redis away: under the default execution mode the call goes on; back with its data, the count holds again', async () => {
    const s = await SseSession.open(r1);
    for (let i = 0; i < LIMIT; i++) expect((await s.call(i + 1, 'fx_echo', { text: 'x' }, [r1, r2][i % 2])).error).toBeUndefined();
    expect(refusal(await s.call(10, 'fx_echo', { text: 'over' }, r1))).toMatchObject({ error: 'rate_limited' });

    await redis.stop({ save: true });
    // The session is cached on r1, which serves it without Redis; the limiter cannot count, and lets the call through.
    let id = 100;
    const through = await waitFor(async () => {
      const answer = await s.call(id++, 'fx_echo', { text: 'unlimited' }, r1);
      return answer.error === undefined ? answer : undefined;
    }, 'a call let through while Redis is away');
    expect(textOf(through)).toContain('unlimited');

    await redis.launch();
    for (const base of [r1, r2]) {
      await waitFor(async () => (await managementClient(base).get('/status')).body.replica.sessions_store.status === 'ok', `${base} reconnected`, 30_000);
    }
    expect(refusal(await s.call(200, 'fx_echo', { text: 'over again' }, r2)), cluster.logs()).toMatchObject({ error: 'rate_limited' });
  });
});
