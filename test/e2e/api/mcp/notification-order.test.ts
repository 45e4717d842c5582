/**
 * Issue 10 §2: every notification a backend sends before its result reaches
 * the gateway's client before that result, on stdio, SSE and streamable-HTTP
 * backends, through /mcp and /sse, also with 100 progress notifications (and
 * 100 log messages) sent back to back. Checked on the wire with a raw client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { fixtureCommand, startHttpFixture, type HttpFixture } from '../../../fixtures/spawn.js';
import { rawSse, rawStreamableHttp, type RawSession } from '../../../helpers/raw-mcp.js';

const BACKENDS = ['s', 'e', 'h'] as const;
const FRONTS = { mcp: rawStreamableHttp, sse: rawSse } as const;

describe('notifications before results', () => {
  let h: Harness;
  let sse: HttpFixture;
  let http: HttpFixture;
  const sessions: RawSession[] = [];

  beforeAll(async () => {
    [sse, http] = await Promise.all([startHttpFixture({ transport: 'sse', name: 'e' }), startHttpFixture({ transport: 'streamable-http', name: 'h' })]);
    const f = fixtureCommand(['--name', 's']);
    h = await startGateway({
      backends: {
        s: { type: 'stdio', command: f.command, args: f.args },
        e: { type: 'sse', url: sse.url },
        h: { type: 'streamable-http', url: http.url },
      },
    });
  });

  afterAll(async () => {
    await Promise.all(sessions.map((s) => s.close()));
    await h?.close();
    await Promise.all([sse?.stop(), http?.stop()]);
  });

  for (const [front, open] of Object.entries(FRONTS)) {
    for (const backend of BACKENDS) {
      it(`${backend} backend via /${front}: 100 progress notifications, then the result`, async () => {
        const session = await open(h.url);
        sessions.push(session);
        for (let round = 1; round <= 3; round++) {
          const messages = await session.request(round, 'tools/call', {
            name: `${backend}_burst`,
            arguments: { count: 100 },
            _meta: { progressToken: `p${round}` },
          });
          const progress = messages.filter((m) => m.method === 'notifications/progress').map((m) => (m.params as { progress: number }).progress);
          expect(progress).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
          const last = messages.at(-1)!;
          expect(last.id).toBe(round);
          expect((last.result as { content: Array<{ text: string }> }).content[0]!.text).toBe('burst 100');
        }
      });
    }
  }

  it('log messages sent before the result come before it too', async () => {
    const session = await rawStreamableHttp(h.url);
    sessions.push(session);
    for (const backend of BACKENDS) {
      const messages = await session.request(10, 'tools/call', { name: `${backend}_burst`, arguments: { count: 50, log: true } });
      const logs = messages.filter((m) => m.method === 'notifications/message').map((m) => (m.params as { data: string }).data);
      expect(logs).toEqual(Array.from({ length: 50 }, (_, i) => `burst ${i + 1}`));
      expect(messages.at(-1)!.id).toBe(10);
    }
  });
});
