/**
 * Issue 31 §6: shared sessions under client authentication. Two replicas
 * behind HAProxy with `incoming_auth: local` and two users: a session
 * belongs to the user who made it, and the replica that takes it up from
 * Redis checks that (the record carries its owner): the other user gets 404
 * there, as for an unknown session, and the owner is served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClusterBed, type ClusterBed } from '../../../helpers/cluster.js';
import type { Haproxy } from '../../../helpers/haproxy.js';
import { stdioFixture } from '../../../fixtures/fixture-backend.js';
import { managementClient } from '../../../helpers/management-client.js';
import { SseSession, textOf } from '../../../helpers/sse-session.js';

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef';
const MGMT = 'management-token-of-the-cluster-0123456789';
const listTools = (id: number) => ({ id, method: 'tools/list' });

describe('shared sessions with client authentication', () => {
  let bed: ClusterBed;
  let proxy: Haproxy;
  let r1: string, r2: string;

  beforeAll(async () => {
    bed = await startClusterBed({
      replicas: 2,
      balancer: true,
      managementToken: MGMT,
      backends: { fx: stdioFixture(['--name', 'fx']) },
      server: { management: { token: MGMT } },
      incomingAuth: {
        type: 'local',
        tokens: [
          { name: 'alice', token: ALICE },
          { name: 'bob', token: BOB },
        ],
      },
    });
    [r1, r2] = bed.cluster.urls as [string, string];
    proxy = bed.proxy!;
  }, 120_000);
  afterAll(async () => {
    await bed?.stop();
  });

  it('the replica that takes a session up checks its owner: the other user gets 404 there, the owner is served', async () => {
    const alice = await SseSession.open(r1, 'alice-client', ALICE);
    const bob = alice.as(BOB);
    // r2 never saw the session: it takes it up from Redis for bob's request, and refuses him as for an unknown session.
    const refused = await bob.post(listTools(1), r2);
    expect(refused.status).toBe(404);
    expect(JSON.stringify(refused.json)).toMatch(/Session not found/);
    // The owner is served there.
    expect(textOf(await alice.call(2, 'fx_echo', { text: 'mine' }, r2))).toContain('mine');
    // Bob is not, on either replica nor through the balancer; without a token nobody is.
    for (const base of [r1, r2, proxy.url, proxy.url]) expect((await bob.post(listTools(3), base)).status).toBe(404);
    expect((await alice.as(undefined).post(listTools(4), r2)).status).toBe(401);

    // The other way round: bob's session made on r2, taken up by r1 for its owner first, then refused to alice there.
    const bobs = await SseSession.open(r2, 'bob-client', BOB);
    expect(textOf(await bobs.call(1, 'fx_echo', { text: 'bob here' }, r1))).toContain('bob here');
    expect((await bobs.as(ALICE).post(listTools(2), r1)).status).toBe(404);

    // Through the balancer (round robin, no stickiness) the owner is served by both replicas.
    for (let i = 0; i < 4; i++) expect(textOf(await alice.call(10 + i, 'fx_echo', { text: 'balanced' }, proxy.url))).toContain('balanced');
    const listed = (await managementClient(r2, MGMT).get('/sessions')).body as { sessions: Array<{ id: string; user_id: string | null }> };
    expect(listed.sessions.find((x) => x.id === alice.id)?.user_id).toBe('alice');
    expect(listed.sessions.find((x) => x.id === bobs.id)?.user_id).toBe('bob');
  });
});
