/**
 * The gateway's own framing of a 2025-11-25 session's `tools/call`
 * (session-direct-calls.ts) against the session's SDK Server
 * (session-server.ts), over real sockets and the gateway's own /mcp
 * transport: two sessions, one connected as the gateway connects them
 * (`session.connect()`), one with the SDK Server alone; the same request,
 * answered by the same handler outcome, gets the same status, media type
 * and body, byte for byte. And the framing is only taken for what it may
 * take: a plain tool call of an initialized session.
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProtocolError } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientSession } from '../../../../api/mcp/client-session.js';
import { NodeStreamableHttpTransport } from '../../../../api/mcp/node-streamable-http-transport.js';
import { createSessionServer, type SessionServerDeps } from '../../../../api/mcp/session-server.js';
import type { McpCall } from '../../../../api/mcp/methods/mcp-call.js';
import type { JsonObject } from '../../../../runtime/routing/caller.js';
import { RpcCode } from '../../../../schemas/json-rpc-codes.js';

/** What the tool call handler does next, and every call it was given. */
let script: (call: McpCall) => Promise<JsonObject> = async () => ({ content: [] });
const calls: McpCall[] = [];

const deps = {
  methods: new Map([
    [
      'tools/call',
      (call: McpCall) => {
        calls.push(call);
        return script(call);
      },
    ],
    ['tools/list', async () => ({ tools: [] })],
  ]),
  router: {},
  serving: { servingNames: () => [] },
  view: { lists: () => ({ resources: [], prompts: [] }), tools: () => [] },
  validator: new AjvJsonSchemaValidator(),
  changes: {
    initialized: () => undefined,
    snapshot: () => undefined,
    logLevel: () => undefined,
    subscribe: async () => undefined,
    unsubscribe: async () => undefined,
  },
  capabilities: () => ({ tools: {} }),
} as unknown as SessionServerDeps;

interface Side {
  url: string;
  session: ClientSession;
  sessionId: string;
  /** How many requests reached the SDK Server's handler. */
  sdkHandled: number;
}

const servers: Server[] = [];
let sdk: Side;
let mine: Side;

/** A session behind its own HTTP server: with the gateway's framing (`connect()`), or the SDK Server alone. */
async function side(framed: boolean): Promise<Side> {
  const transport = new NodeStreamableHttpTransport({ sessionIdGenerator: () => 'session-1' });
  const session = new ClientSession('streamable-http', '127.0.0.1', transport, (s) => createSessionServer(deps, s));
  const out: Side = { url: '', session, sessionId: '', sdkHandled: 0 };
  const handler = session.server.fallbackRequestHandler!;
  session.server.fallbackRequestHandler = (req, ctx) => {
    out.sdkHandled++;
    return handler(req, ctx);
  };
  if (framed) await session.connect();
  else await session.server.connect(transport);
  const server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (text += c));
    req.on('end', () => void transport.handlePost(req, res, JSON.parse(text)));
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  out.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return out;
}

interface Answer {
  status: number;
  type?: string;
  body: string;
}

function post(to: Side, body: unknown): Promise<Answer & { res: IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (to.sessionId) Object.assign(headers, { 'mcp-session-id': to.sessionId, 'mcp-protocol-version': '2025-11-25' });
    const req = request(to.url, { method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], body: text, res }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

async function initialize(to: Side, notify = true): Promise<void> {
  const init = await post(to, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'parity', version: '1.0.0' } },
  });
  expect(init.status).toBe(200);
  to.sessionId = String(init.res.headers['mcp-session-id']);
  if (notify) expect((await post(to, { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
}

let nextId = 40;
const call = (params: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: ++nextId,
  method: 'tools/call',
  params: { name: 'echo', arguments: { text: 'hi' }, ...params },
});

/** The same request to both sessions; both answers, and what reached each SDK Server's handler. */
async function both(body: ReturnType<typeof call>): Promise<{ sdk: Answer; mine: Answer; sdkHandled: [number, number] }> {
  const before: [number, number] = [sdk.sdkHandled, mine.sdkHandled];
  const a = await post(sdk, body);
  const b = await post(mine, body);
  const strip = ({ status, type, body: text }: Answer) => ({ status, type, body: text });
  return { sdk: strip(a), mine: strip(b), sdkHandled: [sdk.sdkHandled - before[0], mine.sdkHandled - before[1]] };
}

beforeAll(async () => {
  sdk = await side(false);
  mine = await side(true);
  await initialize(sdk);
  await initialize(mine);
});

afterAll(async () => {
  await Promise.all([sdk.session.close(), mine.session.close()]);
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});

describe('the gateway frames a 2025-11-25 tools/call as the session SDK Server does', () => {
  it('a result, with and without _meta: the same bytes, and the SDK Server not involved', async () => {
    for (const result of [
      { content: [{ type: 'text', text: 'hi' }], structuredContent: { n: 1 } },
      { content: [], _meta: { 'x/trace': 'abc' }, isError: true },
    ]) {
      script = async () => result;
      const { sdk: a, mine: b, sdkHandled } = await both(call());
      expect(a.status).toBe(200);
      expect(JSON.parse(a.body)).toMatchObject({ result });
      expect(b).toEqual(a);
      expect(sdkHandled).toEqual([1, 0]);
    }
  });

  it('the handler is given the same params and caller', async () => {
    script = async () => ({ content: [] });
    calls.length = 0;
    await both(call({ _meta: { progressToken: 'p1', 'x/other': 1 } }));
    expect(calls).toHaveLength(2);
    const [a, b] = calls.map((c) => ({
      params: c.params,
      caller: { ...c.caller, sendRequest: typeof c.caller.sendRequest },
      progress: typeof c.forward.onprogress,
    }));
    expect(b).toEqual(a);
    expect(a!.progress).toBe('function');
  });

  it('errors: code (an unknown resource renumbered, as the SDK does), message and data', async () => {
    for (const thrown of [
      new ProtocolError(RpcCode.InvalidParams, 'Unknown tool: nope', { error: 'tool_not_found' }),
      new ProtocolError(RpcCode.ResourceNotFound, 'gone'),
      new ProtocolError(-32000, 'backend said no'),
      new Error('no code at all'),
    ]) {
      script = () => Promise.reject(thrown);
      const { sdk: a, mine: b, sdkHandled } = await both(call());
      expect(b).toEqual(a);
      expect(sdkHandled).toEqual([1, 0]);
    }
  });

  it('progress before the result: the same SSE stream', async () => {
    script = async (c) => {
      c.forward.onprogress!({ progress: 1, total: 2 });
      return { content: [] };
    };
    const { sdk: a, mine: b } = await both(call({ _meta: { progressToken: 7 } }));
    expect(a.type).toBe('text/event-stream');
    expect(a.body).toContain('"progressToken":7');
    expect(b).toEqual(a);
  });

  it('a cancelled call aborts its signal with the client reason, and gets no answer', async () => {
    for (const to of [sdk, mine]) {
      const started = new Promise<AbortSignal>((resolve) => {
        script = (c) => {
          resolve(c.forward.signal!);
          return new Promise(() => undefined);
        };
      });
      const body = call();
      let answered = false;
      void post(to, body).then(
        () => (answered = true),
        () => undefined,
      );
      const signal = await started;
      const aborted = new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }));
      expect((await post(to, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: body.id, reason: 'user stop' } })).status).toBe(202);
      expect(await aborted).toBe('user stop');
      expect(answered).toBe(false);
    }
  });
});

describe('which requests the gateway frames', () => {
  it('not a task-augmented call, nor one with a 2026-07-28 envelope or retry material, nor another method', async () => {
    script = async () => ({ content: [] });
    for (const params of [
      { task: { ttl: 1000 } },
      { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
      { inputResponses: {} },
      { requestState: 'x' },
    ]) {
      const before = mine.sdkHandled;
      await post(mine, call(params));
      expect(mine.sdkHandled).toBe(before + 1);
    }
    const before = mine.sdkHandled;
    const listed = await post(mine, { jsonrpc: '2.0', id: 99, method: 'tools/list' });
    expect(JSON.parse(listed.body)).toMatchObject({ result: { tools: [] } });
    expect(mine.sdkHandled).toBe(before + 1);
  });

  it('not before the client finished initializing', async () => {
    const early = await side(true);
    await initialize(early, false);
    script = async () => ({ content: [] });
    await post(early, call());
    expect(early.sdkHandled).toBe(1);
    expect((await post(early, { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
    await post(early, call());
    expect(early.sdkHandled).toBe(1);
    await early.session.close();
  });

  it('closing the session aborts a call framed here', async () => {
    const closing = await side(true);
    await initialize(closing);
    const started = new Promise<AbortSignal>((resolve) => {
      script = (c) => {
        resolve(c.forward.signal!);
        return new Promise(() => undefined);
      };
    });
    void post(closing, call()).catch(() => undefined);
    const signal = await started;
    expect(closing.sdkHandled).toBe(0);
    await closing.session.close();
    expect(signal.aborted).toBe(true);
  });
});
