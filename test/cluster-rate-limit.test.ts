/**
 * Issue 27 with issue 23: with the Redis session store a rate_limiter's
 * counts are the cluster's. Two gateway replicas (real processes) and a real
 * Redis; calls spread over both replicas share one count, and the call over
 * the limit is refused with retry_after_s whichever replica takes it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisServer } from './helpers/redis-server.js';
import { Cluster } from './helpers/cluster.js';
import { stdioFixture } from './helpers/core-util.js';
import { SseSession, textOf, type Message } from './helpers/sse-session.js';

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
});
