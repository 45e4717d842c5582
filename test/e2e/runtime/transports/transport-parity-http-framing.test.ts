/**
 * Issue 11: how the two streamable-HTTP client transports (ours,
 * runtime/transports/node-streamable-http-client-transport.ts, and the SDK's
 * StreamableHTTPClientTransport) read answers byte for byte. A plain
 * node:http server sends crafted answers (JSON and text/event-stream framing
 * that real servers may produce but the SDK's server never does), whole or
 * one byte per write; both transports must hand over the same messages.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { httpClientTransport, type HttpClientTransport } from '../../../helpers/parity-clients.js';
import { Changes } from '../../../helpers/changes.js';

interface Answer {
  contentType: string;
  body: string;
}

const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' }) as const;
const result = (id: number, value: unknown = {}) => ({ jsonrpc: '2.0', id, result: value });
const note = (n: number) => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `n${n}` } });
const json = (v: unknown) => JSON.stringify(v);

/** Each case: what the server answers to request id 1, and the messages a client must deliver. */
const CASES: Array<{ name: string; answer: Answer; expected: unknown[] }> = [
  {
    name: 'JSON with a charset parameter',
    answer: { contentType: 'application/json; charset=utf-8', body: json(result(1, { t: 'é✓' })) },
    expected: [result(1, { t: 'é✓' })],
  },
  { name: 'JSON starting with a UTF-8 byte order mark', answer: { contentType: 'application/json', body: `\uFEFF${json(result(1))}` }, expected: [result(1)] },
  {
    name: 'SSE: named and unnamed events, comments, id and retry fields',
    answer: {
      contentType: 'text/event-stream',
      body: `: hello\n\nid: 7\nretry: 1000\nevent: message\ndata: ${json(note(1))}\n\ndata: ${json(note(2))}\n\n: bye\ndata: ${json(result(1))}\n\n`,
    },
    expected: [note(1), note(2), result(1)],
  },
  {
    name: 'SSE: CRLF and bare CR line endings',
    answer: {
      contentType: 'text/event-stream',
      body: `event: message\r\ndata: ${json(note(1))}\r\n\r\ndata: ${json(note(2))}\r\rdata: ${json(result(1))}\r\n\r\n`,
    },
    expected: [note(1), note(2), result(1)],
  },
  {
    name: 'SSE: one message over several data lines, "data:" without a space',
    answer: { contentType: 'text/event-stream', body: `data:{"jsonrpc":"2.0",\ndata: "id":1,\ndata:"result":{"t":"x"}}\n\n` },
    expected: [result(1, { t: 'x' })],
  },
  {
    name: 'SSE: events of another name are not messages',
    answer: { contentType: 'text/event-stream', body: `event: ping\ndata: {}\n\nevent: endpoint\ndata: /x\n\ndata: ${json(result(1))}\n\n` },
    expected: [result(1)],
  },
  {
    name: 'SSE starting with a UTF-8 byte order mark',
    answer: { contentType: 'text/event-stream; charset=utf-8', body: `\uFEFFdata: ${json(note(1))}\n\ndata: ${json(result(1))}\n\n` },
    expected: [note(1), result(1)],
  },
];

describe('client transports read crafted answers the same way', () => {
  let server: Server;
  let url: string;
  /** What the server answers next, and whether it writes it one byte at a time. */
  let next: { answer: Answer; bytewise: boolean };
  const transports: HttpClientTransport[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.once('end', () => {
        const { answer, bytewise } = next;
        res.writeHead(200, { 'content-type': answer.contentType });
        const bytes = Buffer.from(answer.body);
        if (!bytewise) return void res.end(bytes);
        // One write per byte, each left to go out on its own: splits at every position, inside characters too.
        let i = 0;
        const step = (): void => {
          if (i >= bytes.length) return void res.end();
          res.write(bytes.subarray(i, ++i), () => setImmediate(step));
        };
        step();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });
  afterEach(async () => {
    await Promise.allSettled(transports.splice(0).map((t) => t.close()));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  async function receive(kind: 'sdk' | 'ours'): Promise<{ messages: JSONRPCMessage[]; errors: string[] }> {
    const { http } = httpClientTransport(kind, url);
    transports.push(http);
    const messages: JSONRPCMessage[] = [];
    const errors: string[] = [];
    const changes = new Changes();
    http.onmessage = (m: JSONRPCMessage) => {
      messages.push(m);
      changes.notify();
    };
    http.onerror = (e) => {
      errors.push(e.message);
      changes.notify();
    };
    await http.start();
    await http.send(ping(1)).catch(() => undefined); // a failure shows in onerror
    await changes.until(() => messages.some((m) => 'id' in m && m.id === 1) || errors.length > 0, `${kind}: the answer`);
    return { messages, errors };
  }

  for (const { name, answer, expected } of CASES) {
    for (const bytewise of [false, true]) {
      it(`${name}${bytewise ? ', one byte per write' : ''}`, async () => {
        next = { answer, bytewise };
        const sdk = await receive('sdk');
        const ours = await receive('ours');
        expect(sdk).toEqual({ messages: expected, errors: [] });
        expect(ours).toEqual(sdk);
      });
    }
  }
});
