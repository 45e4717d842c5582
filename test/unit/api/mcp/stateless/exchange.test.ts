/**
 * One 2026-07-28 request's HTTP exchange, over a real socket: a JSON answer,
 * an SSE stream once a related message comes first, and the client's going
 * away before the answer told once to the one waiter and to the signal,
 * whichever asks, before or after; and a notifier that sends until the
 * answer and holds the exchange no longer.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { Exchange } from '../../../../../api/mcp/stateless/exchange.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((done) => server?.close(done) ?? done(undefined));
  server = undefined;
});

/** A server whose one request is handed to `serve` with an Exchange; resolves the client's response (or its error). */
async function exchangeFor(
  serve: (x: Exchange, res: ServerResponse) => void,
): Promise<{ answer: Promise<{ status: number; type?: string; body: string }>; abort: () => void }> {
  server = createServer((_req: IncomingMessage, res) => serve(new Exchange(res, 7), res));
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/mcp' });
  const answer = new Promise<{ status: number; type?: string; body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], body }));
    });
    req.on('error', reject);
  });
  req.end('{}');
  return { answer, abort: () => req.destroy() };
}

const until = (check: () => boolean) =>
  new Promise<void>((done) => {
    const poll = () => (check() ? done() : setImmediate(poll));
    poll();
  });

describe('Exchange', () => {
  it('answers with one JSON body, under the client id, when nothing came first', async () => {
    const { answer } = await exchangeFor((x) => x.answer({ jsonrpc: '2.0', id: x.clientId, result: { ok: true } }));
    const got = await answer;
    expect(got.status).toBe(200);
    expect(got.type).toBe('application/json');
    expect(JSON.parse(got.body)).toEqual({ jsonrpc: '2.0', id: 7, result: { ok: true } });
  });

  it('becomes an SSE stream when a related message comes before the answer', async () => {
    const { answer } = await exchangeFor((x) => {
      x.event({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } });
      x.answer({ jsonrpc: '2.0', id: x.clientId, result: {} });
    });
    const got = await answer;
    expect(got.type).toBe('text/event-stream');
    const events = got.body.split('\n\n').filter((e) => e.startsWith('event: message'));
    expect(events.map((e) => JSON.parse(e.split('data: ')[1]!) as { method?: string; id?: number })).toEqual([
      expect.objectContaining({ method: 'notifications/progress' }),
      expect.objectContaining({ id: 7 }),
    ]);
  });

  it('tells its waiter once, and aborts a signal made before or after, when the client goes away before the answer', async () => {
    let exchange: Exchange | undefined;
    let told = 0;
    const { answer, abort } = await exchangeFor((x) => {
      exchange = x;
      x.onAbandoned(() => told++);
    });
    await until(() => exchange !== undefined);
    const early = exchange!.signal;
    abort();
    await expect(answer).rejects.toThrow();
    await until(() => told > 0);
    expect([told, exchange!.closedEarly, early.aborted, exchange!.signal.aborted]).toEqual([1, true, true, true]);
    expect(String(early.reason)).toContain('closed the response stream');
    // Asked after the client went: told at once. The answer now goes nowhere, and says nothing.
    let late = 0;
    exchange!.onAbandoned(() => late++);
    expect(late).toBe(1);
    expect(() => exchange!.answer({ jsonrpc: '2.0', id: 7, result: {} })).not.toThrow();
    expect(told).toBe(1);
  });

  it('a waiter that let go is not told, and an answered exchange is never abandoned', async () => {
    let exchange: Exchange | undefined;
    let told = 0;
    const { answer, abort } = await exchangeFor((x) => {
      exchange = x;
      const undo = x.onAbandoned(() => told++);
      undo();
    });
    await until(() => exchange !== undefined);
    abort();
    await expect(answer).rejects.toThrow();
    await until(() => exchange!.closedEarly);
    expect(told).toBe(0);

    let answeredTold = 0;
    let answered: Exchange | undefined;
    const second = await exchangeFor((x) => {
      answered = x;
      x.onAbandoned(() => answeredTold++);
      x.answer({ jsonrpc: '2.0', id: x.clientId, result: {} });
    });
    expect((await second.answer).status).toBe(200);
    await until(() => answered !== undefined);
    expect([answeredTold, answered!.closedEarly, answered!.signal.aborted, answered!.answered]).toEqual([0, false, false, true]);
  });

  it('a notifier sends on the stream until the answer, then nothing, and does not keep the exchange alive', async () => {
    let notify: ((n: { method: string; params?: Record<string, unknown> }) => void) | undefined;
    let exchange: WeakRef<Exchange> | undefined;
    const { answer } = await exchangeFor((x) => {
      exchange = new WeakRef(x);
      notify = x.notifier();
      notify({ method: 'notifications/progress', params: { progressToken: 1, progress: 1 } });
      x.answer({ jsonrpc: '2.0', id: x.clientId, result: {} });
      notify({ method: 'notifications/progress', params: { progressToken: 1, progress: 2 } });
    });
    const got = await answer;
    expect(got.body.match(/^data: /gm)).toHaveLength(2);
    expect(got.body).toContain('"progress":1');
    expect(got.body).not.toContain('"progress":2');
    // The request is over and its socket closed: only the notifier is left (a caller can outlive its request).
    server?.closeAllConnections();
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    for (let i = 0; i < 50 && exchange!.deref() !== undefined; i++) {
      await new Promise((next) => setImmediate(next));
      gc();
    }
    expect(exchange!.deref()).toBeUndefined();
    expect(notify).toBeTypeOf('function');
  });
});
