/**
 * A streamable-HTTP MCP app on a plain node:http server, with either the
 * gateway's server transport (NodeStreamableHttpTransport) or the SDK's
 * (StreamableHTTPServerTransport), for test/e2e/runtime/transports/transport-parity-http.test.ts.
 *
 * It is built as real apps build it: an initialize POST without a session id
 * creates a transport and a fixture McpServer (test/fixtures) for the new
 * session, kept under its Mcp-Session-Id; later requests are routed by that
 * header (404 when unknown) and the entry is dropped when the transport
 * closes. `/pinned/<id>` reaches a session's transport whatever the header
 * says, even after it closed, so tests can exercise the transport's own
 * session checks rather than the app's map.
 *
 * It also records what a test must observe on the server side: open GET and
 * POST responses, DELETEs, and the `hang` tool's start and abort.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { NodeStreamableHttpTransport } from '../../api/mcp/node-streamable-http-transport.js';
import { text } from '../fixtures/context.js';
import { createFixtureServer, createFixtureState } from '../fixtures/fixture-server.js';
import { Changes } from './changes.js';

export type ServerKind = 'ours' | 'sdk';
export const SERVER_KINDS: readonly ServerKind[] = ['ours', 'sdk'];

/** The header a test client sends so that the tool `request_info` can show it arrived. */
export const PROBE_HEADER = 'x-parity-probe';

export interface ParitySession {
  id: string;
  transport: NodeStreamableHttpTransport | StreamableHTTPServerTransport;
  server: McpServer;
  /** The transport's onclose ran. */
  closed: boolean;
  /** onsessionclosed ran (a DELETE). */
  deleted: boolean;
  /** GET responses whose SSE headers went out, in order; `open` until their 'close'. */
  getStreams: Array<{ res: ServerResponse; open: boolean }>;
  /** POST responses not yet closed. */
  openPosts: Set<ServerResponse>;
  /** Request ids of `hang` calls that started, and of those whose signal aborted. */
  hangStarted: RequestId[];
  hangAborted: RequestId[];
}

export interface ParityHttpServer {
  kind: ServerKind;
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** The endpoint that reaches session `id`'s transport whatever Mcp-Session-Id says. */
  pinnedUrl(id: string): string;
  /** Sessions by id, including closed ones. */
  sessions: Map<string, ParitySession>;
  changes: Changes;
  session(id: string | undefined): ParitySession;
  /** Resolves once session `id` has `count` GET streams that went out (the last one open). */
  getStreamOpened(id: string, count?: number): Promise<ParitySession>;
  /** Ends the open GET stream: `drop` destroys the connection, `end` finishes the response cleanly. */
  endGetStream(id: string, how: 'drop' | 'end'): void;
  close(): Promise<void>;
}

/**
 * Our transport takes each method by name, as the gateway's /mcp routes hand
 * them over; other methods are the app's to refuse, as the gateway does.
 */
async function handleOurs(transport: NodeStreamableHttpTransport, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
  if (req.method === 'POST') return transport.handlePost(req, res, body);
  if (req.method === 'GET') return transport.handleGet(req, res);
  if (req.method === 'DELETE') return transport.handleDelete(req, res);
  res.writeHead(405, { 'content-type': 'application/json', allow: 'GET, POST, DELETE' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }));
}

export async function startParityServer(kind: ServerKind): Promise<ParityHttpServer> {
  const changes = new Changes();
  const sessions = new Map<string, ParitySession>();
  /** Live sessions by id, as an app keeps them. */
  const live = new Map<string, ParitySession>();
  /** Every transport created, initialized or not, for teardown. */
  const transports = new Set<{ close(): Promise<void> }>();
  const state = createFixtureState();

  function openSession(): ParitySession {
    // The transport's callbacks name the session that holds the transport: they read it through this holder.
    const holder: { session?: ParitySession } = {};
    const options = {
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id: string) => {
        const session = holder.session!;
        session.id = id;
        sessions.set(id, session);
        live.set(id, session);
        changes.notify();
      },
      onsessionclosed: () => {
        holder.session!.deleted = true;
        changes.notify();
      },
    };
    const transport = kind === 'ours' ? new NodeStreamableHttpTransport(options) : new StreamableHTTPServerTransport(options);
    const server = createFixtureServer({ name: `parity-${kind}`, state });
    const session: ParitySession = {
      id: '',
      transport,
      server,
      closed: false,
      deleted: false,
      getStreams: [],
      openPosts: new Set(),
      hangStarted: [],
      hangAborted: [],
    };
    holder.session = session;
    transports.add(transport);
    // Set before connect(): the server chains its own close handling onto it.
    transport.onclose = () => {
      session.closed = true;
      live.delete(session.id);
      changes.notify();
    };
    registerProbeTools(session, changes);
    void server.connect(transport);
    return session;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const pinned = /^\/pinned\/([^/]+)$/.exec(url.pathname);
    if (url.pathname !== '/mcp' && !pinned) return sendJsonRpcError(res, 404, -32000, 'Not found');
    // Any body, parsed whatever its content type: the transport judges the content type.
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    if (body === INVALID) return sendJsonRpcError(res, 400, -32700, 'Parse error');

    let session: ParitySession | undefined;
    if (pinned) {
      session = sessions.get(pinned[1]!);
      if (!session) return sendJsonRpcError(res, 404, -32001, 'No such pinned session');
    } else {
      const id = req.headers['mcp-session-id'];
      if (typeof id === 'string') {
        session = live.get(id);
        if (!session) return sendJsonRpcError(res, 404, -32001, 'Session not found');
      } else if (req.method === 'POST' && (Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body))) {
        session = openSession();
      } else {
        return sendJsonRpcError(res, 400, -32000, 'Bad Request: no valid session id');
      }
    }
    observe(session, req, res, changes);
    // As auth middleware would: the transport hands `req.auth` to handlers as extra.authInfo.
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const authed: IncomingMessage & { auth?: AuthInfo } = req;
    if (bearer) authed.auth = { token: bearer, clientId: 'parity', scopes: [] };
    const transport = session.transport;
    if (transport instanceof StreamableHTTPServerTransport) return transport.handleRequest(authed, res, body);
    await handleOurs(transport, authed, res, body);
  }

  const http: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJsonRpcError(res, 500, -32603, `parity server: ${String(error)}`);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as AddressInfo).port;

  const session = (id: string | undefined): ParitySession => {
    const found = id === undefined ? undefined : sessions.get(id);
    if (!found) throw new Error(`no session ${String(id)} on the ${kind} server`);
    return found;
  };

  return {
    kind,
    url: `http://127.0.0.1:${port}/mcp`,
    pinnedUrl: (id) => `http://127.0.0.1:${port}/pinned/${id}`,
    sessions,
    changes,
    session,
    getStreamOpened: (id, count = 1) =>
      changes.until(() => {
        const s = sessions.get(id);
        return s && s.getStreams.length >= count && s.getStreams[count - 1]!.open && s;
      }, `GET stream #${count} of session ${id} on the ${kind} server`),
    endGetStream(id, how) {
      const stream = session(id).getStreams.find((g) => g.open);
      if (!stream) throw new Error(`session ${id} has no open GET stream`);
      if (how === 'drop') stream.res.destroy();
      // The SDK transport owns its stream through a web ReadableStream: it must close it itself.
      else if (kind === 'sdk') (session(id).transport as StreamableHTTPServerTransport).closeStandaloneSSEStream();
      else stream.res.end();
    },
    async close() {
      await Promise.allSettled([...transports].map((t) => t.close()));
      await Promise.allSettled([...sessions.values()].map((s) => s.server.close()));
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
      await closed;
    },
  };
}

/**
 * Tools only these tests need: `hang` runs until its call is cancelled
 * (recording start and abort), `sample_standalone` asks for sampling on the
 * standalone GET stream rather than the call's own stream, `after_headers`
 * answers only once its response has sent headers without the answer (our
 * transport does so when an answer takes over a second), `request_info`
 * returns what the handler saw of the HTTP request (requestInfo, authInfo).
 */
function registerProbeTools(session: ParitySession, changes: Changes): void {
  const mcp = session.server;
  mcp.registerTool('hang', { description: 'Runs until cancelled' }, async (extra) => {
    session.hangStarted.push(extra.requestId);
    changes.notify();
    await new Promise<void>((resolve) => extra.signal.addEventListener('abort', () => resolve(), { once: true }));
    session.hangAborted.push(extra.requestId);
    changes.notify();
    return text('aborted');
  });
  mcp.registerTool('sample_standalone', { description: 'Sampling request on the standalone stream' }, async () => {
    const result = await mcp.server.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'standalone' } }], maxTokens: 10 });
    return text(`sampled: ${result.content.type === 'text' ? result.content.text : '?'}`);
  });
  mcp.registerTool('after_headers', { description: 'Answers once the response carrying this call has sent its headers' }, async () => {
    const res = await changes.until(() => [...session.openPosts].find((r) => r.headersSent), 'the POST response headers');
    return text(`after headers: ${contentTypes.get(res)}`);
  });
  mcp.registerTool('request_info', { description: 'What the handler saw of the HTTP request' }, async (extra) => {
    const h = extra.requestInfo?.headers ?? {};
    const url = extra.requestInfo?.url;
    return text(
      JSON.stringify({
        probe: h[PROBE_HEADER],
        version: h['mcp-protocol-version'],
        session: h['mcp-session-id'],
        path: url && url.pathname + url.search,
        token: extra.authInfo?.token,
      }),
    );
  });
}

/** Tracks a request's response: POST responses until closed, GET streams once their SSE headers are out. */
function observe(session: ParitySession, req: IncomingMessage, res: ServerResponse, changes: Changes): void {
  if (req.method === 'POST') {
    session.openPosts.add(res);
    res.once('close', () => {
      session.openPosts.delete(res);
      changes.notify();
    });
  }
  // Both transports (ours directly, the SDK's through @hono/node-server) send headers with writeHead.
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = ((...args: unknown[]) => {
    const result = writeHead(...args);
    // Headers given to writeHead are not readable through getHeader(): keep the content type.
    const headers = args.find((a): a is Record<string, unknown> => typeof a === 'object' && a !== null && !Array.isArray(a)) ?? {};
    const type = Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
    contentTypes.set(res, String(type ?? res.getHeader('content-type')));
    if (req.method === 'GET' && res.statusCode === 200) {
      const entry = { res, open: true };
      session.getStreams.push(entry);
      res.once('close', () => {
        entry.open = false;
        changes.notify();
      });
    }
    // After the transport has registered the stream (it does so before or right after writeHead).
    queueMicrotask(() => changes.notify());
    return result;
  }) as ServerResponse['writeHead'];
}

/** Content type each observed response was sent with. */
const contentTypes = new WeakMap<ServerResponse, string>();

const INVALID = Symbol('invalid JSON');

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return INVALID;
  }
}

function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
