/**
 * Issue 11: our streamable-HTTP client transport
 * (runtime/transports/node-streamable-http-client-transport.ts) and the SDK's
 * StreamableHTTPClientTransport on HTTP matters a real MCP server rarely
 * exercises: session and protocol-version headers, error statuses, DELETE,
 * and the SDK's redirect policy (same-origin only; 307/308 for any method,
 * 301/302/303 for GET; never one that adds credentials). Two plain node:http
 * listeners (two origins) answer as each test says; both transports must end
 * up the same.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SdkHttpError } from '@modelcontextprotocol/client';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { httpClientTransport, type HttpClientTransport } from '../../../helpers/parity-clients.js';
import { Changes } from '../../../helpers/changes.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const KINDS = ['sdk', 'ours'] as const;
const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' }) as const;
const initialize = (id: number) =>
  ({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }) as const;
const answerJson = (res: ServerResponse, value: unknown, headers: Record<string, string> = {}): void => {
  res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));
};

describe('client transports on statuses, redirects and headers', () => {
  const servers: Server[] = [];
  /** Base URLs of the two listeners: two origins. */
  let home: string;
  let elsewhere: string;
  let handler: Handler;
  let seen: Seen[] = [];
  const transports: HttpClientTransport[] = [];

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const server = createServer((req, res) => {
        let body = '';
        req.setEncoding('utf8');
        req.on('data', (c: string) => (body += c));
        req.once('end', () => {
          seen.push({ method: req.method!, path: req.url!, headers: req.headers, body });
          handler(req, res, body);
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers.push(server);
    }
    [home, elsewhere] = servers.map((s) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`);
  });
  afterEach(async () => {
    seen = [];
    await Promise.allSettled(transports.splice(0).map((t) => t.close()));
  });
  afterAll(async () => {
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  function open(kind: (typeof KINDS)[number], headers?: Record<string, string>) {
    const { http } = httpClientTransport(kind, `${home}/mcp`, { headers });
    transports.push(http);
    const messages: JSONRPCMessage[] = [];
    const errors: Error[] = [];
    const changes = new Changes();
    http.onmessage = (m: JSONRPCMessage) => {
      messages.push(m);
      changes.notify();
    };
    http.onerror = (e) => {
      errors.push(e);
      changes.notify();
    };
    return { http, messages, errors, changes };
  }

  /** Sends ping `id` and returns its answer, or the error the send rejected with. */
  async function call(c: ReturnType<typeof open>, id: number, message: JSONRPCMessage = ping(id)): Promise<JSONRPCMessage | Error> {
    try {
      await c.http.send(message);
    } catch (error) {
      return error as Error;
    }
    return c.changes.until(() => c.messages.find((m) => 'id' in m && m.id === id), `answer ${id}`);
  }

  for (const kind of KINDS) {
    describe(`${kind} client transport`, () => {
      it('takes the session id from the answer to initialize (only) and sends it, the protocol version once set, and configured headers', async () => {
        handler = (_req, res, body) =>
          answerJson(res, { jsonrpc: '2.0', id: (JSON.parse(body) as { id: number }).id, result: {} }, { 'mcp-session-id': `s-${seen.length}` });
        const c = open(kind, { 'x-custom': 'yes' });
        await c.http.start();
        await call(c, 1, initialize(1));
        expect(c.http.sessionId).toBe('s-1');
        c.http.setProtocolVersion('2025-06-18');
        await call(c, 2);
        // Another answer's session id is no session: the one from the handshake stays.
        expect(c.http.sessionId).toBe('s-1');
        const [first, second] = seen.map((s) => s.headers);
        expect(first!['mcp-session-id']).toBeUndefined();
        expect(first!['x-custom']).toBe('yes');
        expect(second).toMatchObject({ 'mcp-session-id': 's-1', 'mcp-protocol-version': '2025-06-18', 'x-custom': 'yes', 'content-type': 'application/json' });
        expect(second!.accept).toBe('application/json, text/event-stream');
      });

      it('an HTTP error status rejects the send with SdkHttpError carrying status and body', async () => {
        handler = (_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('boom');
        const c = open(kind);
        await c.http.start();
        const error = await call(c, 1);
        expect(error).toBeInstanceOf(SdkHttpError);
        expect(error).toMatchObject({ status: 500, message: 'Error POSTing to endpoint: boom', data: { text: 'boom' } });
      });

      it('terminateSession sends DELETE with the session id; 405 counts as done', async () => {
        handler = (req, res, body) => {
          if (req.method === 'DELETE') return void res.writeHead(405).end();
          answerJson(res, { jsonrpc: '2.0', id: (JSON.parse(body) as { id: number }).id, result: {} }, { 'mcp-session-id': 's-2' });
        };
        const c = open(kind);
        await c.http.start();
        await call(c, 1, initialize(1));
        await c.http.terminateSession();
        expect(seen.at(-1)).toMatchObject({ method: 'DELETE', path: '/mcp', headers: { 'mcp-session-id': 's-2' } });
        expect(c.http.sessionId).toBeUndefined();
      });

      it('a POST stream that ends after an event id but before its answer is resumed with Last-Event-ID', async () => {
        const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: 1 } };
        handler = (req, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          if (req.method === 'POST') return void res.end(`id: e1\nretry: 5\ndata: ${JSON.stringify(progress)}\n\n`);
          res.end(`id: e2\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { resumed: true } })}\n\n`);
        };
        const c = open(kind);
        await c.http.start();
        expect(await call(c, 1)).toEqual({ jsonrpc: '2.0', id: 1, result: { resumed: true } });
        expect(c.messages).toEqual([progress, { jsonrpc: '2.0', id: 1, result: { resumed: true } }]);
        expect(seen.map((s) => [s.method, s.headers['last-event-id']])).toEqual([
          ['POST', undefined],
          ['GET', 'e1'],
        ]);
      });

      for (const status of [307, 308]) {
        it(`a same-origin ${status} is followed with method and body`, async () => {
          handler = (req, res, body) => {
            if (req.url === '/mcp') return void res.writeHead(status, { location: '/moved' }).end();
            answerJson(res, { jsonrpc: '2.0', id: (JSON.parse(body) as { id: number }).id, result: { at: req.url } });
          };
          const c = open(kind);
          await c.http.start();
          expect(await call(c, 1)).toEqual({ jsonrpc: '2.0', id: 1, result: { at: '/moved' } });
          expect(seen.map((s) => [s.method, s.path, s.body])).toEqual([
            ['POST', '/mcp', JSON.stringify(ping(1))],
            ['POST', '/moved', JSON.stringify(ping(1))],
          ]);
        });
      }

      it('a 302 on a POST is not followed, and the error names where it pointed', async () => {
        handler = (_req, res) => res.writeHead(302, { location: '/moved?secret=1' }).end();
        const c = open(kind);
        await c.http.start();
        const error = await call(c, 1);
        expect(error).toBeInstanceOf(SdkHttpError);
        expect(error).toMatchObject({ status: 302 });
        // The SDK adds "(redirectPolicy: 'same-origin')"; both name the target without its query.
        expect((error as Error).message).toMatch(new RegExp(`^Error POSTing to endpoint: Redirect to ${home}/moved not followed`));
        expect(seen).toHaveLength(1);
      });

      it('a redirect to another origin is not followed', async () => {
        handler = (_req, res) => res.writeHead(307, { location: `${elsewhere}/mcp` }).end();
        const c = open(kind);
        await c.http.start();
        expect(await call(c, 1)).toMatchObject({ status: 307 });
        expect(seen).toHaveLength(1);
      });

      it('a same-origin redirect that adds credentials is not followed', async () => {
        handler = (_req, res) => res.writeHead(307, { location: home.replace('http://', 'http://user:pw@') + '/moved' }).end();
        const c = open(kind);
        await c.http.start();
        expect(await call(c, 1)).toMatchObject({ status: 307 });
        expect(seen).toHaveLength(1);
      });

      for (const status of [301, 302, 303, 307]) {
        it(`the GET stream follows a same-origin ${status}`, async () => {
          handler = (req, res) => {
            if (req.method === 'POST') return void res.writeHead(202).end(); // notifications/initialized
            if (req.url === '/mcp') return void res.writeHead(status, { location: '/stream' }).end();
            res.writeHead(200, { 'content-type': 'text/event-stream' });
            res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })}\n\n`);
          };
          const c = open(kind);
          await c.http.start();
          await c.http.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          await c.changes.until(() => c.messages.length > 0 || c.errors.length > 0, 'the stream or an error');
          expect(c.errors.map((e) => e.message)).toEqual([]);
          expect(c.messages).toEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }]);
          expect(seen.map((s) => [s.method, s.path])).toEqual([
            ['POST', '/mcp'],
            ['GET', '/mcp'],
            ['GET', '/stream'],
          ]);
        });
      }
    });
  }
});
