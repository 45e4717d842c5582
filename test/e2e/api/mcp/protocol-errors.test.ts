/**
 * Issue 10 §4 and §5: one error edge per surface, and faults found by
 * fuzzing. MCP paths answer every refusal as JSON-RPC (never Fastify's
 * `{statusCode, code, error, message}`); /manage/v1 answers every error with
 * the spec's body; no request goes unanswered.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { fixtureCommand } from '../../../fixtures/spawn.js';
import { rawStreamableHttp } from '../../../helpers/raw-mcp.js';
import { waitFor } from '../../../helpers/wait.js';

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INIT = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

async function post(url: string, body: string, headers: Record<string, string> = MCP_HEADERS) {
  const res = await fetch(url, { method: 'POST', headers, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: JSON.parse(text) as Record<string, unknown> };
}

const opened: Array<{ url: string; headers: Record<string, string> }> = [];

/** An initialized raw session on /mcp: its id and a POST helper that returns the parsed answer. */
async function session(url: string) {
  const init = await fetch(`${url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify(INIT) });
  await init.text();
  const id = init.headers.get('mcp-session-id')!;
  const headers = { ...MCP_HEADERS, 'mcp-session-id': id };
  opened.push({ url, headers });
  await fetch(`${url}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  const call = async (message: Record<string, unknown>, signal?: AbortSignal) => {
    const res = await fetch(`${url}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', ...message }), signal });
    const text = await res.text();
    const data =
      text.startsWith('event:') || text.includes('\ndata:')
        ? text
            .split('\n')
            .filter((l) => l.startsWith('data:'))
            .map((l) => JSON.parse(l.slice(5)))
        : [JSON.parse(text)];
    return { status: res.status, last: data.at(-1) as Record<string, unknown> };
  };
  return { id, headers, call };
}

const rpcError = (m: Record<string, unknown>) => m.error as { code: number; message: string; data?: Record<string, unknown> };

describe('protocol errors and faults', () => {
  let h: Harness;

  beforeAll(async () => {
    const f = fixtureCommand(['--name', 'fx']);
    h = await startGateway({
      server: { host: '127.0.0.1', port: 0, max_sessions: 6 },
      // A dropped stream's calls are cancelled when nobody resumes it within replay_s.
      sessions: { replay_s: 1 },
      backends: {
        fx: { type: 'stdio', command: f.command, args: f.args, group: '__proto__' },
        constructor: { type: 'stdio', command: f.command, args: f.args, group: 'toString' },
      },
    });
  });
  afterAll(async () => h?.close());
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => fetch(`${s.url}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': s.headers['mcp-session-id']! } })));
  });

  describe('MCP paths answer in JSON-RPC', () => {
    it('a body that is not JSON: 400 with -32700', async () => {
      const r = await post(`${h.url}/mcp`, '{bad');
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
      expect(r.json).not.toHaveProperty('statusCode');
    });

    it('JSON that is not a JSON-RPC message or batch: 400 with -32600', async () => {
      for (const body of ['[1]', '{"jsonrpc":"2.0"}', '[]', '"text"', '{"jsonrpc":"1.0","id":1,"method":"ping"}']) {
        const r = await post(`${h.url}/mcp`, body);
        expect(r.status, body).toBe(400);
        expect(rpcError(r.json).code, body).toBe(-32600);
      }
    });

    it('a wrong media type is 415, an unsupported method 405 with Allow, both as JSON-RPC', async () => {
      const text = await post(`${h.url}/mcp`, 'hello', { 'content-type': 'text/plain', accept: MCP_HEADERS.accept });
      expect(text.status).toBe(415);
      expect(text.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
      const put = await fetch(`${h.url}/mcp`, { method: 'PUT' });
      expect(put.status).toBe(405);
      expect(put.headers.get('allow')).toBe('GET, POST, DELETE');
      expect(await put.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
      const sse = await post(`${h.url}/sse`, '{}');
      expect(sse.status).toBe(405);
      expect(sse.headers.get('allow')).toBe('GET');
    });

    it('an unknown method is -32601; bad params -32602, the message as the one who refused it wrote it', async () => {
      const s = await session(h.url);
      expect(rpcError((await s.call({ id: 1, method: 'tools/frobnicate' })).last).code).toBe(-32601);
      const noName = rpcError((await s.call({ id: 2, method: 'tools/call', params: {} })).last);
      expect(noName.code).toBe(-32602);
      // The gateway's own refusal, with no SDK prefix added (the SDK's v2 line adds none):
      expect(noName.message).toBe('Invalid params: tools/call needs a string `name`');
      // A backend's -32602 as an SDK server sends it (its message already carries the prefix): passed on with one.
      const backendError = rpcError(
        (await s.call({ id: 3, method: 'tools/call', params: { name: 'fx_throw', arguments: { code: -32602, message: 'MCP error -32602: bad x' } } })).last,
      );
      expect(backendError.code).toBe(-32602);
      expect(backendError.message).toBe('MCP error -32602: bad x');
    });

    it('params._meta that is not an object is answered with -32602 (no request goes unanswered)', async () => {
      const s = await session(h.url);
      for (const [i, meta] of ['x', 5, [1], null].entries()) {
        const r = await s.call({ id: 10 + i, method: 'tools/call', params: { name: 'fx_echo', arguments: { text: 'a' }, _meta: meta } });
        expect(rpcError(r.last).code, JSON.stringify(meta)).toBe(-32602);
      }
      const list = await s.call({ id: 20, method: 'tools/list', params: { _meta: 'x' } });
      expect(rpcError(list.last).code).toBe(-32602);
    });

    it('every malformed request is answered: a progress token of the wrong type, an unknown member (issue 28)', async () => {
      const s = await session(h.url);
      for (const [i, token] of [{}, null, [1], 1.5, true].entries()) {
        const r = await s.call({ id: 30 + i, method: 'tools/call', params: { name: 'fx_echo', arguments: { text: 'a' }, _meta: { progressToken: token } } });
        expect(rpcError(r.last).code, JSON.stringify(token)).toBe(-32602);
        expect(rpcError(r.last).message).toMatch(/progressToken must be a string or an integer/);
      }
      const extra = await s.call({ id: 40, method: 'tools/list', extra: 1 });
      expect(rpcError(extra.last)).toMatchObject({ code: -32600, message: 'Invalid Request: unknown member "extra"' });
      // And the session goes on.
      expect((await s.call({ id: 41, method: 'ping' })).last.result).toEqual({});
    });

    it('arguments that are not an object: -32602 with one short message naming the field, for tools and prompts', async () => {
      const s = await session(h.url);
      for (const [i, args] of ['x', 5, [1], null].entries()) {
        const tool = rpcError((await s.call({ id: 50 + i, method: 'tools/call', params: { name: 'fx_echo', arguments: args } })).last);
        expect(tool, JSON.stringify(args)).toEqual({
          code: -32602,
          message: 'Invalid params: arguments must be an object',
          data: expect.anything(),
        });
        const prompt = rpcError((await s.call({ id: 60 + i, method: 'prompts/get', params: { name: 'fx_greet', arguments: args } })).last);
        expect(prompt.message, JSON.stringify(args)).toBe('Invalid params: arguments must be an object');
      }
    });

    it('JSON nested deeper than the limit is refused before routing (400, -32600), on /mcp and on the management API', async () => {
      const s = await session(h.url);
      const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
      const text = `{"jsonrpc":"2.0","id":70,"method":"tools/call","params":{"name":"fx_echo","arguments":{"text":${deep(200_000)}}}}`;
      const res = await fetch(`${h.url}/mcp`, { method: 'POST', headers: s.headers, body: text });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request: JSON nested deeper than 128 levels' },
      });
      const manage = await fetch(`${h.url}/manage/v1/tools/call`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"tool":"fx_echo","arguments":{"text":${deep(200_000)}}}`,
      });
      expect(manage.status).toBe(400);
      expect(await manage.json()).toMatchObject({ error: 'invalid_message' });
      // Brackets inside strings do not count, and a body at the limit is served.
      const inString = await s.call({ id: 71, method: 'tools/call', params: { name: 'fx_echo', arguments: { text: '['.repeat(1000) } } });
      expect(inString.last.result).toBeDefined();
    });

    it('logging/setLevel with an unknown level is -32602', async () => {
      const s = await session(h.url);
      const r = await s.call({ id: 1, method: 'logging/setLevel', params: { level: 'loud' } });
      expect(rpcError(r.last).code).toBe(-32602);
      expect((await s.call({ id: 2, method: 'logging/setLevel', params: { level: 'debug' } })).last.result).toEqual({});
    });

    it('a second request with an id already in flight gets -32600 naming it; the first completes', async () => {
      const s = await session(h.url);
      const first = s.call({ id: 7, method: 'tools/call', params: { name: 'fx_slow', arguments: { steps: 2, delay_ms: 300 } } });
      await waitFor(() => h.gateway.router.inFlightCount > 0, 'the first call in flight');
      const dup = await s.call({ id: 7, method: 'tools/call', params: { name: 'fx_echo', arguments: { text: 'dup' } } });
      expect(dup.status).toBe(400);
      expect(rpcError(dup.last).code).toBe(-32600);
      expect(rpcError(dup.last).message).toContain('7');
      const done = await first;
      expect((done.last.result as { content: Array<{ text: string }> }).content[0]!.text).toBe('done 2');
    });
  });

  describe('a client that goes away mid-call', () => {
    const cancelledCount = async () => {
      const s = await rawStreamableHttp(h.url);
      const m = await s.request(1, 'tools/call', { name: 'fx_last_cancelled', arguments: {} });
      await s.close();
      return (JSON.parse((m.at(-1)!.result as { content: Array<{ text: string }> }).content[0]!.text) as { count: number }).count;
    };
    const auditLines = () =>
      readFileSync(`${h.dir}/audit.jsonl`, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { target: { capability_name: string }; outcome: { status: string; error: string | null; error_type: string | null } });

    it('closing the request stream and not resuming it within replay_s cancels the backend call and audits it as cancelled', async () => {
      const before = await cancelledCount();
      const s = await session(h.url);
      const ctrl = new AbortController();
      const call = s
        .call({ id: 1, method: 'tools/call', params: { name: 'fx_slow', arguments: { steps: 50, delay_ms: 200 } } }, ctrl.signal)
        .catch((e: Error) => e);
      await waitFor(() => h.gateway.router.inFlightCount > 0, 'the call in flight at the backend');
      ctrl.abort();
      await call;
      await waitFor(async () => (await cancelledCount()) > before, 'the backend to see the cancellation');
      await h.gateway.audit.flush();
      await waitFor(
        () => auditLines().some((l) => l.target.capability_name === 'fx_slow' && l.outcome.error_type === 'RequestCancelledError'),
        'a cancelled audit record',
      );
      const record = auditLines().find((l) => l.outcome.error_type === 'RequestCancelledError')!;
      expect(record.outcome.status).toBe('error');
      expect(record.outcome.error).toMatch(/^cancelled: /);
      expect(h.gateway.router.inFlightCount).toBe(0);
    });

    it('deleting the session mid-call cancels the backend call too', async () => {
      const before = await cancelledCount();
      const s = await session(h.url);
      const call = s.call({ id: 1, method: 'tools/call', params: { name: 'fx_slow', arguments: { steps: 50, delay_ms: 200 } } }).catch((e: Error) => e);
      await waitFor(() => h.gateway.router.inFlightCount > 0, 'the call in flight at the backend');
      const del = await fetch(`${h.url}/mcp`, { method: 'DELETE', headers: s.headers });
      expect(del.status).toBe(200);
      await call;
      await waitFor(async () => (await cancelledCount()) > before, 'the backend to see the cancellation');
      await waitFor(() => h.gateway.router.inFlightCount === 0, 'no call left in flight');
    });
  });

  describe('session limit', () => {
    it('beyond server.max_sessions initialize gets 503 with Retry-After; open sessions keep working', async () => {
      const open: Array<Awaited<ReturnType<typeof session>>> = [];
      while (h.gateway.sessions.size < 6) open.push(await session(h.url));
      const refused = await post(`${h.url}/mcp`, JSON.stringify(INIT));
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(refused.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringContaining('6') } });
      const sse = await fetch(`${h.url}/sse`);
      expect(sse.status).toBe(503);
      await sse.text();
      const stillThere = await open[0]!.call({ id: 1, method: 'tools/call', params: { name: 'fx_echo', arguments: { text: 'hi' } } });
      expect((stillThere.last.result as { content: Array<{ text: string }> }).content[0]!.text).toContain('hi');
      await Promise.all(open.map((s) => fetch(`${h.url}/mcp`, { method: 'DELETE', headers: s.headers })));
    });
  });

  describe('names that are Object.prototype properties', () => {
    it('are plain unknown names on every /manage/v1/*/{name} route', async () => {
      for (const name of ['hasOwnProperty', 'toString', '__proto__', 'valueOf']) {
        for (const path of [`/reconnect/${name}`, `/reauth/${name}`, `/skills/${name}/enable`, `/skills/${name}/disable`]) {
          const res = await fetch(`${h.url}/manage/v1${path}`, { method: 'POST' });
          const body = (await res.json()) as { error: string };
          // Skills answer 503 until the skill manager exists; what matters is that no prototype property is "found".
          expect([404, 503], `${path}: ${JSON.stringify(body)}`).toContain(res.status);
          expect(body.error).not.toBe('internal_error');
        }
      }
    });

    it('a backend named `constructor` and groups named `__proto__` / `toString` work like any other', async () => {
      const groups = (await (await fetch(`${h.url}/manage/v1/groups`)).json()) as { groups: Record<string, { servers: string[] }> };
      expect(Object.keys(groups.groups).sort()).toEqual(['__proto__', 'toString']);
      expect(new Map(Object.entries(groups.groups)).get('toString')!.servers).toEqual(['constructor']);
      const reconnect = await fetch(`${h.url}/manage/v1/reconnect/constructor`, { method: 'POST' });
      expect(reconnect.status).toBe(200);
      expect(((await reconnect.json()) as { reconnected: boolean }).reconnected).toBe(true);
    });
  });

  describe('/manage/v1 answers every error with the spec body', () => {
    it('malformed JSON, wrong content type, unknown routes', async () => {
      const bad = await post(`${h.url}/manage/v1/tools/call`, '{bad', { 'content-type': 'application/json' });
      expect(bad.status).toBe(400);
      expect(bad.json).toMatchObject({ error: 'bad_request', message: expect.stringContaining('JSON'), details: { reason: 'invalid_json' } });
      const form = await post(`${h.url}/manage/v1/tools/call`, 'x=1', { 'content-type': 'application/x-www-form-urlencoded' });
      expect(form.status).toBe(415);
      expect(form.json).toMatchObject({ error: 'unsupported_media_type', details: {} });
      const unknown = await fetch(`${h.url}/manage/v1/nothing/here`);
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toMatchObject({ error: 'not_found', message: expect.any(String), details: {} });
    });

    it('GET /manage/v1 and /manage/v1/ answer with the service name, version and endpoints', async () => {
      for (const path of ['/manage/v1', '/manage/v1/']) {
        const res = await fetch(`${h.url}${path}`);
        expect(res.status, path).toBe(200);
        const body = (await res.json()) as { name: string; version: string; endpoints: Array<{ method: string; path: string }> };
        expect(body.name).toBe('mcp-gateway');
        expect(body.version).toMatch(/^\d+\.\d+\.\d+/);
        expect(body.endpoints).toContainEqual(expect.objectContaining({ method: 'GET', path: '/manage/v1/health' }));
        expect(body.endpoints).toContainEqual(expect.objectContaining({ method: 'POST', path: '/manage/v1/reconnect/{name}' }));
      }
    });

    it('a path outside both surfaces gets the spec body too', async () => {
      const res = await fetch(`${h.url}/nowhere`);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: 'not_found', details: {} });
    });
  });
});
