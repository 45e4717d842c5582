/**
 * Issue 11: the gateway's own streamable-HTTP transports against the SDK's.
 *
 * One list of behaviours runs against every combination of
 * - server transport: ours (api/mcp/node-streamable-http-transport.ts) or the
 *   SDK's StreamableHTTPServerTransport, each behind node:http with one
 *   fixture McpServer per session (test/helpers/parity-http-server.ts);
 * - client transport: ours (runtime/transports/node-streamable-http-client-transport.ts)
 *   or the SDK's StreamableHTTPClientTransport, bare or wrapped in
 *   runtime/transports/ordered-delivery.ts as the gateway wraps every backend,
 *   each under a real SDK Client.
 * Every combination must show the same behaviour to the Client. Where the
 * wire differs on purpose (our server answers a request with plain JSON when
 * nothing precedes the answer, the SDK's always opens an SSE stream), the
 * tests assert what the Client observes, not the framing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SdkHttpError } from '@modelcontextprotocol/client';
import { ErrorCode, LATEST_PROTOCOL_VERSION, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { CLIENT_KINDS, httpClientTransport, testClient, type ClientKind, type HttpTransportOptions } from '../../../helpers/parity-clients.js';
import { PROBE_HEADER, SERVER_KINDS, startParityServer, type ParityHttpServer, type ParitySession } from '../../../helpers/parity-http-server.js';
import { parseSseMessages } from '../../../helpers/raw-mcp.js';
import { Changes } from '../../../helpers/changes.js';
import {
  expectOnlyDroppedProgressErrors,
  expectProgressBurst,
  expectSamplingAndElicitation,
  expectToolError,
  expectToolsListAndCall,
  textOf,
} from '../../../helpers/parity-behaviours.js';

const BURST = 100;

describe.each(SERVER_KINDS)('%s server transport', (serverKind) => {
  let server: ParityHttpServer;

  beforeAll(async () => {
    server = await startParityServer(serverKind);
  });
  afterAll(async () => {
    await server?.close();
  });

  describe.each(CLIENT_KINDS)('%s client transport', (clientKind: ClientKind) => {
    const cleanups: Array<() => Promise<void>> = [];
    /** Transport errors seen by the test's clients, checked by `expectNoTransportErrors`. */
    let clients: Array<ReturnType<typeof testClient>> = [];
    afterEach(async () => {
      clients = [];
      await Promise.allSettled(cleanups.splice(0).map((c) => c()));
    });
    /** Nothing went wrong on the way: no combination reports a spurious transport error. */
    const expectNoTransportErrors = () => expect(clients.flatMap((c) => c.errors.map((e) => e.message))).toEqual([]);

    async function connect(opts: HttpTransportOptions = {}, url = server.url) {
      const t = testClient();
      clients.push(t);
      const { transport, http } = httpClientTransport(clientKind, url, opts);
      cleanups.push(() => t.client.close());
      await t.client.connect(transport);
      const session: ParitySession = server.session(http.sessionId);
      // The same object, not a copy: its counters change as notifications arrive.
      return Object.assign(t, { http, session });
    }

    it('initialize: a session id the server knows, the server info; with the SDK server transport, headers, URL and auth reach the handler', async () => {
      // A query string on the endpoint, a configured header and a bearer token (turned into authInfo by the app).
      const t = await connect({ headers: { [PROBE_HEADER]: 'hello', authorization: 'Bearer tok-1' } }, `${server.url}?tenant=a`);
      const { http } = t;
      expect(http.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(t.session.closed).toBe(false);
      expect(t.client.getServerVersion()).toEqual({ name: `parity-${serverKind}`, version: '1.0.0' });
      expect(http.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
      const seen = JSON.parse(textOf(await t.client.callTool({ name: 'request_info' }))) as Record<string, string>;
      if (serverKind === 'ours') {
        // Ours hands the SDK no HTTP request per message (a web Request each would cost what the v2 move saved):
        // the gateway takes the caller from the route (api/mcp/authenticate.ts), not from the message.
        expect(seen).toEqual({});
      } else {
        expect(seen).toEqual({ probe: 'hello', version: LATEST_PROTOCOL_VERSION, session: http.sessionId, path: '/mcp?tenant=a', token: 'tok-1' });
      }
      expectNoTransportErrors();
    });

    it('tools/list and tools/call', async () => {
      const { client } = await connect();
      await expectToolsListAndCall(client);
      expectNoTransportErrors();
    });

    it('a JSON-RPC error from a tool reaches the caller with its code and message', async () => {
      const { client } = await connect();
      await expectToolError(client);
      expectNoTransportErrors();
    });

    it(`${BURST} progress notifications sent back to back all reach the Client before the result, in order`, async () => {
      const { client, errors } = await connect();
      if (clientKind !== 'ours') {
        await expectProgressBurst(client, BURST, true);
        expectNoTransportErrors();
        return;
      }
      // Known, and the reason runtime/transports/ordered-delivery.ts exists: our bare
      // transport hands over every message of one chunk synchronously, and the SDK's
      // Protocol settles a result at once but runs a notification's handler a microtask
      // later, after it forgot the call's progress handler; so the progress read in the
      // same chunk as the result is dropped (typically all of it). The SDK's transport
      // reads SSE events one by one through async web streams, which leaves room for the
      // handlers. The gateway never uses ours bare (create-transport.ts wraps it); what
      // does arrive is in order, and the Protocol reports each one it dropped.
      const received = await expectProgressBurst(client, BURST, false);
      expectOnlyDroppedProgressErrors(errors, 3 * BURST - received);
    });

    it('an answer sent after the response headers went out (as SSE) reaches the caller', async () => {
      // Our server answers with plain JSON when it can, but switches to SSE once an answer
      // has taken a second; the SDK's opens SSE at once. The tool answers only after the
      // headers went out, so both take the SSE path, and say which content type it had.
      const { client } = await connect();
      expect(textOf(await client.callTool({ name: 'after_headers' }))).toBe('after headers: text/event-stream');
      expectNoTransportErrors();
    });

    it('sampling and elicitation requests sent during a call are answered by the client', async () => {
      const t = await connect();
      await expectSamplingAndElicitation(t);
      expectNoTransportErrors();
    });

    it('a sampling request on the standalone GET stream is answered by the client', async () => {
      const { client, session, served } = await connect();
      await server.getStreamOpened(session.id);
      expect(textOf(await client.callTool({ name: 'sample_standalone' }))).toBe('sampled: echo: standalone');
      expect(served).toEqual(['sampling:standalone']);
      expectNoTransportErrors();
    });

    it('tools/list_changed arrives on the standalone GET stream', async () => {
      const t = await connect();
      await server.getStreamOpened(t.session.id);
      const name = `added_${clientKind.replace('+', '_')}`;
      expect(textOf(await t.client.callTool({ name: 'add_tool', arguments: { name } }))).toBe(`added ${name}`);
      await t.changes.until(() => t.listChanged >= 1, 'tools/list_changed');
      expect((await t.client.listTools()).tools.map((x) => x.name)).toContain(name);
      expectNoTransportErrors();
    });

    it('cancelling a call aborts the server handler, and the session goes on', async () => {
      const { client, session } = await connect();
      const controller = new AbortController();
      const reason = new Error('parity: cancelled by the test');
      const call = client.callTool({ name: 'hang' }, undefined, { signal: controller.signal });
      const [id] = await server.changes.until(() => session.hangStarted.length === 1 && session.hangStarted, 'hang to start');
      controller.abort(reason);
      // The SDK's Protocol rejects the call with an McpError carrying the abort reason (whichever transport).
      await expect(call).rejects.toThrow(/parity: cancelled by the test/);
      await server.changes.until(() => session.hangAborted.includes(id!), 'the handler to see the abort');
      expect(textOf(await client.callTool({ name: 'add', arguments: { a: 3, b: 4 } }))).toBe('7');
      expectNoTransportErrors();
    });

    it('DELETE (terminateSession) ends the session: the server closes it and the id then gets 404', async () => {
      const { http, session } = await connect();
      const id = http.sessionId!;
      await http.terminateSession();
      expect(http.sessionId).toBeUndefined();
      await server.changes.until(() => session.deleted && session.closed, 'the server to close the session');
      // Through the app (its session map) and straight to the closed transport.
      for (const url of [server.url, server.pinnedUrl(id)]) {
        const res = await rawPost(url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-session-id': id });
        expect(res.status, url).toBe(404);
      }
    });

    it('a session the server ended makes the next request fail with SdkHttpError 404', async () => {
      const { client, session } = await connect();
      await session.transport.close();
      const call = client.listTools();
      await expect(call).rejects.toBeInstanceOf(SdkHttpError);
      await expect(call).rejects.toMatchObject({ status: 404 });
    });

    for (const how of ['drop', 'end'] as const) {
      it(`the client reopens its GET stream when the server ${how === 'drop' ? 'drops the connection' : 'ends the stream'}`, async () => {
        const t = await connect();
        await server.getStreamOpened(t.session.id, 1);
        server.endGetStream(t.session.id, how);
        await server.getStreamOpened(t.session.id, 2);
        // The new stream carries standalone messages.
        await t.client.callTool({ name: 'add_tool', arguments: { name: `after_${how}_${clientKind.replace('+', '_')}` } });
        await t.changes.until(() => t.listChanged >= 1, 'tools/list_changed on the reopened stream');
      });
    }

    it('when the session is gone, the client stops reopening its GET stream after maxRetries and says so', async () => {
      const t = await connect();
      await server.getStreamOpened(t.session.id);
      // The server ends the session (as a reaper would): its GET stream ends, reopening gets 404.
      await t.session.transport.close();
      await t.changes.until(() => t.errors.some((e) => e.message === 'Maximum reconnection attempts (2) exceeded.'), 'the client to give up');
      const refused = 'Failed to open SSE stream: Not Found';
      expect(t.errors.map((e) => e.message)).toEqual([
        refused,
        `Failed to reconnect SSE stream: ${refused}`,
        refused,
        `Failed to reconnect SSE stream: ${refused}`,
        'Maximum reconnection attempts (2) exceeded.',
      ]);
      expect(t.errors[0]).toBeInstanceOf(SdkHttpError);
      expect(t.errors[0]).toMatchObject({ status: 404 });
    });

    it('the server closing the session during a call: ours fails the call, the SDK leaves it to the client timeout', async () => {
      const { client, session } = await connect();
      const call = client.callTool({ name: 'hang' }, undefined, { timeout: serverKind === 'sdk' ? 300 : 60_000 });
      await server.changes.until(() => session.hangStarted.length === 1, 'hang to start');
      await session.transport.close();
      if (serverKind === 'ours') {
        // Deliberate: a response that has not sent its headers yet (the first second of a
        // call with nothing before its answer) is answered 404 "Session closed", so the
        // caller learns at once. Once a response is an SSE stream, ours ends it like the SDK.
        await expect(call).rejects.toBeInstanceOf(SdkHttpError);
        await expect(call).rejects.toMatchObject({ status: 404 });
      } else {
        // The SDK's transport ends the call's SSE stream without an answer; the client
        // does not resume a stream that had no event id, so only its request timeout ends the call.
        await expect(call).rejects.toMatchObject({ code: ErrorCode.RequestTimeout });
      }
    });

    it('close() rejects pending requests and ends every connection to the server', async () => {
      const { client, session } = await connect();
      await server.getStreamOpened(session.id);
      const call = client.callTool({ name: 'hang' });
      await server.changes.until(() => session.hangStarted.length === 1, 'hang to start');
      await client.close();
      await expect(call).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed });
      await server.changes.until(() => session.openPosts.size === 0 && session.getStreams.every((g) => !g.open), 'every response to close');
    });
  });

  // Batches go through the bare transports: the SDK Client never sends one, and the
  // ordered-delivery wrapper takes single messages only.
  describe.each(['sdk', 'ours'] as const)('%s client transport, without a Client', (clientKind) => {
    const cleanups: Array<() => Promise<void>> = [];
    afterEach(async () => {
      await Promise.allSettled(cleanups.splice(0).map((c) => c()));
    });

    it('a batch sent through the transport is answered in full', async () => {
      const { http } = httpClientTransport(clientKind, server.url);
      const received: JSONRPCMessage[] = [];
      const changes = new Changes();
      http.onmessage = (m: JSONRPCMessage) => {
        received.push(m);
        changes.notify();
      };
      cleanups.push(() => http.close());
      await http.start();
      await http.send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'batch', version: '1' } },
      });
      await changes.until(() => received.length === 1, 'the initialize answer');
      http.setProtocolVersion(LATEST_PROTOCOL_VERSION);
      await http.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      await http.send([
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'a' } } },
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } },
      ]);
      await changes.until(() => received.length === 3, 'both batch answers');
      const byId = new Map(received.slice(1).map((m) => [(m as { id: number }).id, m]));
      expect(textOf((byId.get(2) as { result: unknown }).result)).toBe('a');
      expect(textOf((byId.get(3) as { result: unknown }).result)).toBe('3');
      // A batch of notifications only is accepted (202) and answered with nothing.
      await http.send([
        { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
        { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
      ]);
      // A batch where one answer is preceded by progress (our server switches that response to SSE midway).
      await http.send([
        { jsonrpc: '2.0', id: 4, method: 'ping' },
        { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'burst', arguments: { count: 3 }, _meta: { progressToken: 'bp' } } },
      ]);
      await changes.until(() => received.some((m) => 'id' in m && m.id === 4) && received.some((m) => 'id' in m && m.id === 5), 'both answers');
      const rest = received.slice(3) as Array<{ id?: number; method?: string; params?: { progress?: number } }>;
      const progress = rest.filter((m) => m.method === 'notifications/progress').map((m) => m.params?.progress);
      expect(progress).toEqual([1, 2, 3]);
      // Every progress comes before the answer it belongs to.
      expect(rest.findIndex((m) => m.id === 5)).toBeGreaterThan(Math.max(...rest.map((m, i) => (m.method ? i : -1))));
      // Nothing else arrived: the notification batch above got no answer.
      expect(rest).toHaveLength(5);
    });
  });

  describe('HTTP level', () => {
    const INIT = {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    const ids: string[] = [];
    afterEach(async () => {
      await Promise.allSettled(ids.splice(0).map((id) => server.session(id).transport.close()));
    });

    async function rawSession(): Promise<string> {
      const res = await rawPost(server.url, INIT);
      expect(res.status).toBe(200);
      const id = res.headers.get('mcp-session-id')!;
      ids.push(id);
      expect((await rawPost(server.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': id })).status).toBe(202);
      return id;
    }

    it('406 for a POST that does not accept both JSON and SSE, and for a GET that does not accept SSE', async () => {
      const init = await rawPost(server.url, INIT, { accept: 'application/json' });
      expect(init.status).toBe(406);
      expect(init.body).toEqual(jsonRpcError(-32000, 'Not Acceptable: Client must accept both application/json and text/event-stream'));
      const id = await rawSession();
      const post = await rawPost(server.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-session-id': id, accept: 'text/event-stream' });
      expect(post.status).toBe(406);
      const get = await fetch(server.url, { headers: { 'mcp-session-id': id, accept: 'application/json' } });
      expect(get.status).toBe(406);
      expect(await get.json()).toEqual(jsonRpcError(-32000, 'Not Acceptable: Client must accept text/event-stream'));
    });

    it('415 for a POST whose body is not declared JSON', async () => {
      const init = await rawPost(server.url, INIT, { 'content-type': 'text/plain' });
      expect(init.status).toBe(415);
      expect(init.body).toEqual(jsonRpcError(-32000, 'Unsupported Media Type: Content-Type must be application/json'));
      const id = await rawSession();
      const post = await rawPost(server.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-session-id': id, 'content-type': 'text/plain' });
      expect(post.status).toBe(415);
      // Parameters after the media type are fine.
      const withCharset = await rawPost(
        server.url,
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        { 'mcp-session-id': id, 'content-type': 'application/json; charset=utf-8' },
      );
      expect(withCharset.status).toBe(200);
    });

    it('the transport refuses a session id that is not its own (404) and a missing one (400)', async () => {
      const id = await rawSession();
      const wrong = await rawPost(server.pinnedUrl(id), { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-session-id': 'not-this-session' });
      expect(wrong.status).toBe(404);
      expect(wrong.body).toEqual(jsonRpcError(-32001, 'Session not found'));
      const missing = await rawPost(server.pinnedUrl(id), { jsonrpc: '2.0', id: 1, method: 'tools/list' });
      expect(missing.status).toBe(400);
      expect(missing.body).toEqual(jsonRpcError(-32000, 'Bad Request: Mcp-Session-Id header is required'));
      // Through the app, an unknown id is the app's 404.
      expect((await rawPost(server.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-session-id': 'unknown' })).status).toBe(404);
    });

    it('400 for a second initialize and for an unsupported protocol version', async () => {
      const id = await rawSession();
      const again = await rawPost(server.pinnedUrl(id), INIT, { 'mcp-session-id': id });
      expect(again.status).toBe(400);
      expect(again.body).toEqual(jsonRpcError(-32600, 'Invalid Request: Server already initialized'));
      const version = await rawPost(
        server.url,
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { 'mcp-session-id': id, 'mcp-protocol-version': '1999-01-01' },
      );
      expect(version.status).toBe(400);
      expect((version.body as { error: { message: string } }).error.message).toMatch(/^Bad Request: Unsupported protocol version: 1999-01-01/);
    });

    it('409 for a second GET stream', async () => {
      const id = await rawSession();
      const first = await fetch(server.url, { headers: { 'mcp-session-id': id, accept: 'text/event-stream' } });
      expect(first.status).toBe(200);
      expect(first.headers.get('content-type')).toBe('text/event-stream');
      const second = await fetch(server.url, { headers: { 'mcp-session-id': id, accept: 'text/event-stream' } });
      expect(second.status).toBe(409);
      expect(await second.json()).toEqual(jsonRpcError(-32000, 'Conflict: Only one SSE stream is allowed per session'));
      await first.body?.cancel();
    });

    it('a batch of requests gets every answer (JSON array or SSE events), and a batch of notifications 202', async () => {
      const id = await rawSession();
      const batch = await rawPost(
        server.url,
        [
          { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } },
          { jsonrpc: '2.0', id: 'b', method: 'ping' },
        ],
        { 'mcp-session-id': id },
      );
      expect(batch.status).toBe(200);
      // Framing differs on purpose: our server answers a batch whose answers need nothing before them as one JSON array.
      expect(batch.contentType).toBe(serverKind === 'ours' ? 'application/json' : 'text/event-stream');
      const answers = batch.messages as Array<{ id: string; result: unknown }>;
      expect(answers.map((m) => m.id).sort()).toEqual(['a', 'b']);
      expect(answers.find((m) => m.id === 'b')!.result).toEqual({});
      const notes = await rawPost(
        server.url,
        [
          { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
          { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
        ],
        { 'mcp-session-id': id },
      );
      expect(notes.status).toBe(202);
      const initBatch = await rawPost(server.url, [INIT, { jsonrpc: '2.0', id: 9, method: 'ping' }]);
      expect(initBatch.status).toBe(400);
      expect(initBatch.body).toEqual(jsonRpcError(-32600, 'Invalid Request: Only one initialization request is allowed'));
    });

    it('405 with Allow for other methods', async () => {
      const id = await rawSession();
      const res = await fetch(server.url, { method: 'PUT', headers: { 'mcp-session-id': id } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, POST, DELETE');
      expect(await res.json()).toEqual(jsonRpcError(-32000, 'Method not allowed.'));
    });

    it('deliberate differences: what only one server refuses, or refuses differently', async () => {
      // Ours follows JSON-RPC and answers every request (api/mcp/node-streamable-http-transport.ts);
      // the gateway's own /mcp routes refuse the first two before either transport sees them.
      const id = await rawSession();
      const h = { 'mcp-session-id': id };
      const notJsonRpc = await rawPost(server.url, { jsonrpc: '1.0', id: 1, method: 'ping' }, h);
      const emptyBatch = await rawPost(server.url, [], h);
      const badMeta = await rawPost(server.url, { jsonrpc: '2.0', id: 5, method: 'tools/list', params: { _meta: 5 } }, h);
      const sameIds = await rawPost(
        server.url,
        [
          { jsonrpc: '2.0', id: 6, method: 'ping' },
          { jsonrpc: '2.0', id: 6, method: 'ping' },
        ],
        h,
      );
      if (serverKind === 'ours') {
        // A JSON value that is not a JSON-RPC message is an invalid request (-32600), not a parse error.
        expect([notJsonRpc.status, notJsonRpc.body]).toEqual([400, jsonRpcError(-32600, 'Invalid Request: not a JSON-RPC 2.0 message')]);
        // An empty batch is an invalid request in JSON-RPC.
        expect([emptyBatch.status, emptyBatch.body]).toEqual([400, jsonRpcError(-32600, 'Invalid Request: empty batch')]);
        // A request the SDK's Protocol would drop unanswered gets an error answer.
        expect([badMeta.status, badMeta.body]).toEqual([
          200,
          { jsonrpc: '2.0', id: 5, error: { code: -32602, message: 'Invalid params: _meta must be an object (got 5)' } },
        ]);
        // One answer per id: a second request with an id in flight is refused.
        expect([sameIds.status, sameIds.body]).toEqual([
          400,
          { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: request id 6 is already in flight in this session' } },
        ]);
      } else {
        expect([notJsonRpc.status, notJsonRpc.body]).toEqual([400, jsonRpcError(-32700, 'Parse error: Invalid JSON-RPC message')]);
        expect(emptyBatch.status).toBe(202);
        expect([badMeta.status, badMeta.body]).toEqual([400, jsonRpcError(-32700, 'Parse error: Invalid JSON-RPC message')]);
        expect(sameIds.status).toBe(200);
      }
      // Both refuse a batch over 100 messages the same way.
      const big = await rawPost(
        server.url,
        Array.from({ length: 101 }, () => ({ jsonrpc: '2.0', method: 'notifications/x' })),
        h,
      );
      expect([big.status, big.body]).toEqual([400, jsonRpcError(-32600, 'Invalid Request: Batch must not exceed 100 messages')]);
    });

    it('DELETE ends the session; the closed transport answers 404', async () => {
      const id = await rawSession();
      const del = await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': id } });
      expect(del.status).toBe(200);
      await server.changes.until(() => server.session(id).closed, 'the session to close');
      for (const url of [server.url, server.pinnedUrl(id)]) {
        expect((await rawPost(url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': id })).status).toBe(404);
        expect((await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': id } })).status).toBe(404);
      }
    });
  });
});

const jsonRpcError = (code: number, message: string) => ({ jsonrpc: '2.0', id: null, error: { code, message } });

interface RawAnswer {
  status: number;
  headers: Headers;
  contentType: string;
  /** The JSON body (for an error or a JSON answer). */
  body: unknown;
  /** The JSON-RPC messages of the answer, from a JSON body or SSE events. */
  messages: unknown[];
}

/** One POST with the headers a conforming client sends, overridable per test. */
async function rawPost(url: string, body: unknown, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  const contentType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
  const text = await res.text();
  if (contentType === 'text/event-stream') return { status: res.status, headers: res.headers, contentType, body: undefined, messages: parseSseMessages(text) };
  const json = text ? (JSON.parse(text) as unknown) : undefined;
  return { status: res.status, headers: res.headers, contentType, body: json, messages: Array.isArray(json) ? json : json === undefined ? [] : [json] };
}
