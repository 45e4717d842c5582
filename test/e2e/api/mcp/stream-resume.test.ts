/**
 * Resumable streams with the memory store (issue 23): every SSE event has an
 * id, a POST stream opens with a priming event, a dropped connection is not
 * a cancellation, and a GET with `Last-Event-ID` replays what the client
 * missed on a POST stream or on the standalone stream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { stdioFixture } from '../../../fixtures/fixture-backend.js';
import { waitFor } from '../../../helpers/wait.js';
import { SseSession, textOf, type Message } from '../../../helpers/sse-session.js';

const progressOf = (m: Message) => (m.method === 'notifications/progress' ? ((m.params as { progress: number }).progress as number) : undefined);

describe('resumable streams (memory store)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startGateway({ backends: { fx: stdioFixture(['--name', 'fx']) } });
  });
  afterAll(async () => h?.close());

  const cancelledCount = async (s: SseSession, id: number) => (JSON.parse(textOf(await s.call(id, 'fx_last_cancelled'))) as { count: number }).count;

  it('every event of a POST stream has an id, and the first is a priming event without data', async () => {
    const s = await SseSession.open(h.url);
    const res = await s.post({
      id: 1,
      method: 'tools/call',
      params: { name: 'fx_slow', arguments: { steps: 2, delay_ms: 20 }, _meta: { progressToken: 'p' } },
    });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(textOf(await res.answer(1))).toBe('done 2');
    await res.whenEnded();
    expect(res.events[0]).toMatchObject({ data: '' });
    expect(res.events.every((e) => typeof e.id === 'string' && e.id.length > 0)).toBe(true);
    expect(new Set(res.events.map((e) => e.id)).size).toBe(res.events.length);
    expect(res.messages.map(progressOf).filter((p) => p !== undefined)).toEqual([1, 2]);
  });

  it('a dropped POST stream is not a cancellation: Last-Event-ID replays the missed events and the answer', async () => {
    const s = await SseSession.open(h.url);
    const before = await cancelledCount(s, 100);
    const res = await s.post({
      id: 1,
      method: 'tools/call',
      params: { name: 'fx_slow', arguments: { steps: 5, delay_ms: 150 }, _meta: { progressToken: 'p' } },
    });
    await res.until(() => res.messages.some((m) => progressOf(m) === 1), 'the first progress');
    const seen = res.messages.map(progressOf).filter((p) => p !== undefined);
    const lastId = res.lastEventId!;
    res.drop();

    const resumed = await s.get(lastId);
    expect(resumed.status).toBe(200);
    expect(textOf(await resumed.answer(1))).toBe('done 5');
    await resumed.whenEnded();
    // Nothing missing, nothing twice: the progress the first connection saw, then the rest.
    const after = resumed.messages.map(progressOf).filter((p) => p !== undefined);
    expect([...seen, ...after]).toEqual([1, 2, 3, 4, 5]);
    expect(await cancelledCount(s, 101)).toBe(before);
  });

  it('an answer made while nobody was attached waits for the resume', async () => {
    const s = await SseSession.open(h.url);
    const res = await s.post({
      id: 1,
      method: 'tools/call',
      params: { name: 'fx_slow', arguments: { steps: 2, delay_ms: 100 }, _meta: { progressToken: 'p' } },
    });
    await res.until(() => res.lastEventId, 'an event id');
    const lastId = res.lastEventId!;
    res.drop();
    // The call ends while the client is away (the router has no call left in flight).
    await waitFor(() => h.gateway.router.inFlightCount === 0, 'the call to finish');
    const resumed = await s.get(lastId);
    expect(textOf(await resumed.answer(1))).toBe('done 2');
    await resumed.whenEnded();
  });

  it('the standalone stream: events have ids, and what was sent while it was dropped is replayed', async () => {
    const s = await SseSession.open(h.url);
    const get = await s.get();
    expect(get.status).toBe(200);
    await get.until(() => get.events.length > 0, 'the priming event');
    expect(get.events[0]).toMatchObject({ data: '' });
    const lastId = get.lastEventId!;
    get.drop();
    // A second client adds a tool: the gateway announces tools/list_changed to every session while ours is away.
    const other = await SseSession.open(h.url);
    expect(textOf(await other.call(1, 'fx_add_tool', { name: 'while_away' }))).toBe('added while_away');
    await waitFor(() => h.gateway.serving.routes.tools.has('fx_while_away'), 'the new tool in the route table');

    const resumed = await s.get(lastId);
    await resumed.until(() => resumed.messages.some((m) => m.method === 'notifications/tools/list_changed'), 'the replayed list_changed');
    expect(resumed.events.every((e) => e.id !== undefined)).toBe(true);
    resumed.drop();
  });

  it('a Last-Event-ID that names no stream of the session is refused with 400', async () => {
    const s = await SseSession.open(h.url);
    const res = await s.get('nope/3');
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining('nope/3') } });
  });
});
