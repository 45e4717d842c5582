/**
 * The gateway's server transport for /mcp (api/mcp/node-streamable-http-transport.ts)
 * on a real node:http server in this process, driven as the session's SDK
 * Server drives it: what the client POSTs arrives at `onmessage`, and the
 * test answers with `send()`. Real HTTP clients (fetch) read the wire.
 *
 * When an answer is plain JSON and when the response turns into SSE, how a
 * client resumes a broken stream with Last-Event-ID (and what happens when
 * nobody does), and request ids already in flight.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';
import { NodeStreamableHttpTransport } from '../../../../api/mcp/node-streamable-http-transport.js';
import { Changes } from '../../../helpers/changes.js';
import { PROTOCOL, SseSession, type Message } from '../../../helpers/sse-session.js';

interface Fixture {
  base: string;
  transport: NodeStreamableHttpTransport;
  /** What the client sent, as the transport handed it over. */
  received: Message[];
  /** Request ids the transport gave up on (their stream dropped and nobody resumed it). */
  abandoned: RequestId[];
  /** POST responses whose connection closed, in order. */
  closedPosts: number;
  changes: Changes;
  /** Resolves once the transport handed over the request `id`. */
  request(id: RequestId): Promise<Message>;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** One session's transport behind a node:http server; initialize is answered as the SDK Server would. */
async function start(opts: { replayMs?: number } = {}): Promise<Fixture> {
  const changes = new Changes();
  const transport = new NodeStreamableHttpTransport({ sessionIdGenerator: () => 'session-1', keepAliveMs: 0, replayMs: opts.replayMs });
  const f: Fixture = {
    base: '',
    transport,
    received: [],
    abandoned: [],
    closedPosts: 0,
    changes,
    request: (id) => changes.until(() => f.received.find((m) => m.id === id && 'method' in m), `request ${String(id)} at the transport`),
  };
  transport.onmessage = (m) => {
    f.received.push(m as Message);
    changes.notify();
    if ((m as Message).method === 'initialize') {
      const result = { protocolVersion: PROTOCOL, capabilities: {}, serverInfo: { name: 'unit', version: '1' } };
      void transport.send({ jsonrpc: '2.0', id: (m as { id: RequestId }).id, result } as JSONRPCMessage);
    }
  };
  transport.onrequestsabandoned = (ids) => {
    f.abandoned.push(...ids);
    changes.notify();
  };
  await transport.start();
  const server = createServer((req, res) => void handle(transport, f, req, res));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  f.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return f;
}

async function handle(transport: NodeStreamableHttpTransport, f: Fixture, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method === 'GET') return transport.handleGet(req, res);
  if (req.method === 'DELETE') return transport.handleDelete(req, res);
  let text = '';
  for await (const chunk of req) text += String(chunk);
  res.once('close', () => {
    f.closedPosts++;
    f.changes.notify();
  });
  return transport.handlePost(req, res, JSON.parse(text));
}

const answer = (id: RequestId, result: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, result }) as JSONRPCMessage;
const progress = (n: number) => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: n } }) as JSONRPCMessage;
const call = (id: RequestId) => ({ id, method: 'tools/call', params: { name: 'x', arguments: {} } });

describe('node streamable HTTP transport: JSON or SSE', () => {
  it('answers with plain JSON when nothing comes before the answer', async () => {
    const f = await start();
    const s = await SseSession.open(f.base);
    const response = s.post(call(1));
    await f.request(1);
    await f.transport.send(answer(1, { n: 1 }));
    const res = await response;
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('mcp-session-id')).toBe('session-1');
    expect(res.json).toEqual({ jsonrpc: '2.0', id: 1, result: { n: 1 } });
  });

  it('turns into SSE as soon as a message tied to the request precedes the answer: priming event, the message, the answer, the end', async () => {
    const f = await start();
    const s = await SseSession.open(f.base);
    const response = s.post(call(2));
    await f.request(2);
    await f.transport.send(progress(1), { relatedRequestId: 2 });
    const res = await response;
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    await res.until(() => res.messages.length === 1, 'the progress event');
    await f.transport.send(answer(2, { done: true }));
    await res.whenEnded();
    // A 2025-11-25 client takes a priming event: an id and no data, so it can resume before the first message.
    expect(res.events[0]).toMatchObject({ id: expect.stringMatching(/^\d+\/\d+$/), data: '' });
    expect(res.messages).toEqual([progress(1), answer(2, { done: true })]);
    expect(new Set(res.events.map((e) => e.id)).size).toBe(3);
  });

  it('a batch answered in part when it turns into SSE sends the answers it already has first, then the rest', async () => {
    const f = await start();
    const s = await SseSession.open(f.base);
    const response = s.post([call(3), call(4)]);
    await f.request(4);
    await f.transport.send(answer(3));
    await f.transport.send(progress(1), { relatedRequestId: 4 });
    const res = await response;
    await f.transport.send(answer(4));
    await res.whenEnded();
    expect(res.messages).toEqual([answer(3), progress(1), answer(4)]);
  });

  it('a slow answer gets SSE headers before it comes, so the client is never left without response headers', async () => {
    const f = await start();
    const s = await SseSession.open(f.base);
    // Nothing is sent for request 5: the response headers still arrive (after the transport's SSE switch delay).
    const res = await s.post(call(5));
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    await f.transport.send(answer(5, { late: true }));
    await res.answer(5);
    await res.whenEnded();
    expect(res.messages).toEqual([answer(5, { late: true })]);
  });
});

describe('node streamable HTTP transport: a broken stream', () => {
  it('is resumed with Last-Event-ID: the events sent while nobody listened, then the rest, then the end; no call is abandoned', async () => {
    const f = await start();
    const s = await SseSession.open(f.base);
    const response = s.post(call(6));
    await f.request(6);
    await f.transport.send(progress(1), { relatedRequestId: 6 });
    const first = await response;
    await first.until(() => first.messages.length === 1, 'the first progress event');
    const lastSeen = first.lastEventId!;
    const closedBefore = f.closedPosts;
    first.drop();
    await f.changes.until(() => f.closedPosts > closedBefore, 'the server to see the POST connection close');

    // Sent while no connection carries the stream: kept for the resume.
    await f.transport.send(progress(2), { relatedRequestId: 6 });
    const resumed = await s.get(lastSeen);
    expect(resumed.status).toBe(200);
    expect(resumed.headers.get('mcp-session-id')).toBe('session-1');
    await resumed.until(() => resumed.messages.length === 1, 'the missed progress event');
    await f.transport.send(answer(6, { resumed: true }));
    await resumed.whenEnded();
    expect(resumed.messages).toEqual([progress(2), answer(6, { resumed: true })]);
    expect(f.abandoned).toEqual([]);

    // The answer was delivered on a connection that saw the end: nothing is left to resume.
    const again = await s.get(resumed.lastEventId);
    expect(again.status).toBe(400);
  });

  it('not resumed within the replay window: the calls still unanswered on it are abandoned (and only those)', async () => {
    const f = await start({ replayMs: 50 });
    const s = await SseSession.open(f.base);
    const response = s.post([call(7), call(8)]);
    await f.request(8);
    await f.transport.send(answer(7));
    await f.transport.send(progress(1), { relatedRequestId: 8 });
    const res = await response;
    await res.until(() => res.messages.length === 2, 'the answer to 7 and the progress of 8');
    res.drop();
    await f.changes.until(() => f.abandoned.length > 0, 'the unanswered call to be abandoned');
    expect(f.abandoned).toEqual([8]);
    // Its id is free again once answered (the SDK Server answers a cancelled call, here with an error).
    await f.transport.send({ jsonrpc: '2.0', id: 8, error: { code: -32800, message: 'cancelled' } } as JSONRPCMessage);
  });

  it('a Last-Event-ID that names no stream of this session is refused with 400', async () => {
    const f = await start();
    const s = await SseSession.open(f.base);
    const res = await s.get('99/1');
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.json)).toMatch(/Last-Event-ID 99\/1 names no stream of this session/);
  });
});

describe('node streamable HTTP transport: request ids', () => {
  it('refuses a request whose id is still in flight in the session (400, -32600) without touching the one in flight', async () => {
    const f = await start();
    const s = await SseSession.open(f.base);
    const inFlight = s.post(call(9));
    await f.request(9);
    const duplicate = await s.post(call(9));
    expect(duplicate.status).toBe(400);
    expect(duplicate.json).toMatchObject({
      jsonrpc: '2.0',
      id: 9,
      error: { code: -32600, message: expect.stringMatching(/request id 9 is already in flight/) },
    });
    expect(f.received.filter((m) => m.id === 9)).toHaveLength(1);

    await f.transport.send(answer(9, { first: true }));
    expect((await inFlight).json).toEqual(answer(9, { first: true }));
    // Answered: the id may be used again.
    const reused = s.post(call(9));
    await f.changes.until(() => f.received.filter((m) => m.id === 9).length === 2, 'the reused id at the transport');
    await f.transport.send(answer(9, { second: true }));
    expect((await reused).json).toEqual(answer(9, { second: true }));
  });

  it('refuses a batch that repeats an id, naming it, with a null id; none of its messages is handed over', async () => {
    const f = await start();
    const s = await SseSession.open(f.base);
    const before = f.received.length;
    const res = await s.post([call('a'), call('b'), call('a')]);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ id: null, error: { code: -32600, message: expect.stringMatching(/request id "a" is already in flight/) } });
    expect(f.received.length).toBe(before);
  });
});
