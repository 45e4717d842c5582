/**
 * The gateway's own framing of a 2026-07-28 `tools/call` (direct-calls.ts)
 * against the SDK's Server (stateless-server.ts), over real sockets: the
 * same request, answered by the same handler outcome, gets the same status,
 * media type and body, byte for byte, from both. And the framing is only
 * taken for what it may take: a first round of `tools/call` whose envelope
 * the SDK's Server has already let through.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProtocolError, type JSONRPCRequest } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Exchange } from '../../../../../api/mcp/stateless/exchange.js';
import { ExchangeTransport, type RequestOrigin } from '../../../../../api/mcp/stateless/exchange-transport.js';
import { createStatelessServer } from '../../../../../api/mcp/stateless/stateless-server.js';
import { DirectCalls } from '../../../../../api/mcp/stateless/direct-calls.js';
import { KnownEnvelopes } from '../../../../../api/mcp/stateless/known-envelopes.js';
import type { ModernRequest } from '../../../../../api/mcp/stateless/modern-handler.js';
import { MODERN_CLASSIFICATION } from '../../../../../api/mcp/well-formed-modern-request.js';
import { ANONYMOUS } from '../../../../../runtime/access/identity.js';
import type { JsonObject } from '../../../../../runtime/routing/caller.js';
import { RpcCode } from '../../../../../schemas/json-rpc-codes.js';

const ORIGIN: RequestOrigin = { identity: ANONYMOUS, clientIp: '127.0.0.1' };
const CAPS = { elicitation: { form: {}, url: {} }, sampling: {}, roots: { listChanged: true } };
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': CAPS,
  'io.modelcontextprotocol/clientInfo': { name: 'parity', version: '1.0.0' },
};

/** What the handler does with the next request, and what it was given. */
let script: (request: ModernRequest) => Promise<JsonObject> = async () => ({ content: [] });
const seen: ModernRequest[] = [];
const handle = (request: ModernRequest) => {
  seen.push(request);
  return script(request);
};

const envelopes = new KnownEnvelopes();
const direct = new DirectCalls(handle, envelopes);
const transport = new ExchangeTransport();
let sdkUrl = '';
let directUrl = '';
const servers: Server[] = [];

async function listen(serve: (exchange: Exchange, request: JSONRPCRequest) => void): Promise<string> {
  const server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (text += c));
    req.on('end', () => {
      const body = JSON.parse(text) as JSONRPCRequest;
      serve(new Exchange(res, body.id), body);
    });
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

beforeAll(async () => {
  await createStatelessServer({ handle, envelopes, cacheTtlMs: () => 60_000, capabilities: () => ({ tools: {} }), schemaGated: [] }, transport);
  sdkUrl = await listen((exchange, body) => transport.dispatch(exchange, body, MODERN_CLASSIFICATION, ORIGIN));
  directUrl = await listen((exchange, body) => direct.serve(exchange, body, ORIGIN));
});

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});

interface Answer {
  status: number;
  type?: string;
  body: string;
}

function post(url: string, body: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], body: text }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const call = (params: Record<string, unknown> = {}, meta: Record<string, unknown> = ENVELOPE) => ({
  jsonrpc: '2.0',
  id: 41,
  method: 'tools/call',
  params: { name: 'echo', arguments: { text: 'hi' }, ...params, _meta: meta },
});

/** The same request through both framings; both answers, and what the handler was given each time. */
async function both(body: ReturnType<typeof call>): Promise<{ sdk: Answer; mine: Answer; given: ModernRequest[] }> {
  seen.length = 0;
  const sdk = await post(sdkUrl, body);
  const mine = await post(directUrl, body);
  return { sdk, mine, given: [...seen] };
}

describe('the gateway frames a 2026-07-28 tools/call as the SDK Server does', () => {
  it('a result: resultType and serverInfo stamped, in the same key order', async () => {
    script = async () => ({ content: [{ type: 'text', text: 'hi' }], structuredContent: { n: 1 } });
    const { sdk, mine } = await both(call());
    expect(sdk.status).toBe(200);
    expect(JSON.parse(sdk.body)).toMatchObject({
      result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': { name: expect.any(String) } } },
    });
    expect(mine).toEqual(sdk);
  });

  it('a result with _meta of its own, and one that already has a resultType', async () => {
    script = async () => ({ content: [], _meta: { 'x/trace': 'abc' } });
    let pair = await both(call());
    expect(pair.mine).toEqual(pair.sdk);
    script = async () => ({ resultType: 'input_required', inputRequests: { a: { method: 'roots/list' } }, requestState: 's' });
    pair = await both(call());
    expect(JSON.parse(pair.sdk.body)).toMatchObject({ result: { resultType: 'input_required' } });
    expect(pair.mine).toEqual(pair.sdk);
  });

  it('the handler is given the same params, envelope and progress token', async () => {
    script = async () => ({ content: [] });
    const { given } = await both(call({}, { ...ENVELOPE, progressToken: 'p1', 'x/other': 1, traceparent: '00-a-b-01' }));
    expect(given).toHaveLength(2);
    const [sdk, mine] = given.map((g) => ({
      method: g.method,
      params: g.params,
      envelope: g.envelope,
      inputResponses: g.inputResponses,
      requestState: g.requestState,
    }));
    expect(mine).toEqual(sdk);
    expect(sdk!.params._meta).toEqual({ progressToken: 'p1', 'x/other': 1, traceparent: '00-a-b-01' });
  });

  it('errors: code (an unknown resource renumbered), message, data and status', async () => {
    for (const thrown of [
      new ProtocolError(RpcCode.InvalidParams, 'Unknown tool: nope', { error: 'tool_not_found' }),
      new ProtocolError(RpcCode.ResourceNotFound, 'gone'),
      new ProtocolError(RpcCode.MissingRequiredClientCapability, 'needs elicitation', { requiredCapabilities: { elicitation: {} } }),
      new ProtocolError(-32000, 'backend said no'),
      new Error('no code at all'),
    ]) {
      script = () => Promise.reject(thrown);
      const { sdk, mine } = await both(call());
      expect(mine).toEqual(sdk);
    }
    script = () => Promise.reject(new ProtocolError(RpcCode.ResourceNotFound, 'gone'));
    expect(JSON.parse((await both(call())).mine.body)).toMatchObject({ error: { code: RpcCode.InvalidParams } });
  });

  it('progress and log messages before the result: the same SSE stream', async () => {
    script = async (request) => {
      request.notify({ method: 'notifications/progress', params: { progressToken: 'p', progress: 1, total: 2 } });
      request.notify({ method: 'notifications/message', params: { level: 'info', data: 'half way' } });
      return { content: [] };
    };
    const { sdk, mine } = await both(call());
    expect(sdk.type).toBe('text/event-stream');
    expect(sdk.body.match(/event: message/g)).toHaveLength(3);
    expect(mine).toEqual(sdk);
  });
});

describe('which requests the gateway frames', () => {
  const wellFormed = (params: Record<string, unknown> = {}, meta: Record<string, unknown> = ENVELOPE) => call(params, meta) as unknown as JSONRPCRequest;
  const freshInfo = (name: string) => ({ ...ENVELOPE, 'io.modelcontextprotocol/clientInfo': { name, version: '1.0.0' } });

  it('a tool call whose envelope the SDK has let through, and no other', async () => {
    script = async () => ({ content: [] });
    const meta = freshInfo('first-time');
    expect(direct.takes(wellFormed({}, meta))).toBe(false);
    expect((await post(sdkUrl, call({}, meta))).status).toBe(200);
    expect(direct.takes(wellFormed({}, meta))).toBe(true);
    // Another method, or a later round, still goes to the SDK.
    expect(direct.takes({ ...wellFormed({}, meta), method: 'prompts/get' })).toBe(false);
    expect(direct.takes(wellFormed({ requestState: 'x' }, meta))).toBe(false);
    expect(direct.takes(wellFormed({ inputResponses: {} }, meta))).toBe(false);
    // The same client with other capabilities is another envelope.
    expect(direct.takes(wellFormed({}, { ...meta, 'io.modelcontextprotocol/clientCapabilities': {} }))).toBe(false);
  });

  it('an envelope the SDK refuses is never remembered', async () => {
    const bad = { ...freshInfo('bad-caps'), 'io.modelcontextprotocol/clientCapabilities': { elicitation: 5 } };
    seen.length = 0;
    const refused = await post(sdkUrl, call({}, bad));
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: RpcCode.InvalidParams } });
    expect(seen).toHaveLength(0);
    expect(direct.takes(wellFormed({}, bad))).toBe(false);
  });

  it('a large envelope is never remembered: the SDK checks it every time', () => {
    const known = new KnownEnvelopes();
    const large = { ...freshInfo('large'), 'io.modelcontextprotocol/clientCapabilities': { experimental: { blob: 'x'.repeat(5000) } } };
    known.remember(large);
    expect(known.known(large)).toBe(false);
  });

  it('the pair just seen is told apart from one that differs anywhere inside it', () => {
    const known = new KnownEnvelopes();
    const caps = (c: unknown) => ({ ...freshInfo('nested'), 'io.modelcontextprotocol/clientCapabilities': c });
    known.remember(caps({ elicitation: { form: {} }, roots: { listChanged: true }, experimental: { list: [1, 2] } }));
    // The same pair, its keys in another order: known (the SDK's check ignores the order too).
    expect(known.known(caps({ experimental: { list: [1, 2] }, roots: { listChanged: true }, elicitation: { form: {} } }))).toBe(true);
    for (const other of [
      { elicitation: { form: {}, url: {} }, roots: { listChanged: true }, experimental: { list: [1, 2] } },
      { elicitation: { form: {} }, roots: { listChanged: false }, experimental: { list: [1, 2] } },
      { elicitation: { form: {} }, roots: {}, experimental: { list: [1, 2] } },
      { elicitation: { form: {} }, roots: { listChanged: true }, experimental: { list: [1, 2, 3] } },
      { elicitation: { form: {} }, roots: { listChanged: true }, experimental: { list: { 0: 1, 1: 2 } } },
      { elicitation: { form: {} }, roots: { listChanged: true } },
      {},
    ])
      expect(known.known(caps(other)), JSON.stringify(other)).toBe(false);
    expect(
      known.known({
        ...caps({ elicitation: { form: {} }, roots: { listChanged: true }, experimental: { list: [1, 2] } }),
        'io.modelcontextprotocol/clientInfo': { name: 'nested', version: '1.0.1' },
      }),
    ).toBe(false);
  });

  it('a full set starts again', () => {
    const small = new KnownEnvelopes(2);
    const nth = (n: number) => freshInfo(`client-${n}`);
    small.remember(nth(1));
    small.remember(nth(2));
    expect([small.known(nth(1)), small.known(nth(2))]).toEqual([true, true]);
    small.remember(nth(3));
    expect([small.known(nth(1)), small.known(nth(2)), small.known(nth(3))]).toEqual([false, false, true]);
  });
});
