/**
 * `/mcp`: the streamable HTTP transport. A POST without a session must be an
 * initialize request and creates the session; later POSTs, the GET stream and
 * DELETE name it in `Mcp-Session-Id`. Fastify parses the body; the session's
 * transport then owns the raw response (hence `reply.hijack()`). The transport
 * is our Node-native one (./node-streamable-http-transport.ts), not the SDK's:
 * see docs/performance.md.
 *
 * Every refusal is a JSON-RPC error body with the status the transport
 * standard gives it (api/send-error.ts): 400 -32700 for a body that is not
 * JSON, 400 -32600 for JSON that is not a JSON-RPC message or batch, 404 for
 * an unknown session, 405 for other methods, 503 beyond `server.max_sessions`.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { GatewayError } from '../../schemas/errors.js';
import { invalidJson } from '../error-mapping.js';
import { isJsonRpcMessage } from '../../runtime/transports/json-rpc.js';
import { ClientSession } from './client-session.js';
import { NodeStreamableHttpTransport } from './node-streamable-http-transport.js';
import { createSessionServer } from './session-server.js';
import type { McpContext } from './mcp-context.js';
import { admitSession } from './admission.js';

/** A JSON-RPC message, or a non-empty batch of them. */
function isJsonRpcPayload(body: unknown): boolean {
  if (Array.isArray(body)) return body.length > 0 && body.every(isJsonRpcMessage);
  return isJsonRpcMessage(body);
}

/** A /mcp session: one whose transport is the streamable HTTP one (an /sse session id is unknown here). */
interface StreamableSession {
  session: ClientSession;
  transport: NodeStreamableHttpTransport;
}

export async function streamableHttpRoutes(app: FastifyInstance, ctx: McpContext): Promise<void> {
  // The session store is the one table of sessions: a session it has let go (reaped, closing) is gone.
  const lookup = (req: FastifyRequest): StreamableSession => {
    const id = req.headers['mcp-session-id'];
    if (typeof id !== 'string' || !id) throw new GatewayError('bad_request', 'Bad Request: Mcp-Session-Id header is required');
    const session = ctx.sessions.get(id);
    if (!session || !(session.transport instanceof NodeStreamableHttpTransport)) throw new GatewayError('not_found', `Session not found: ${id}`);
    return { session, transport: session.transport };
  };

  app.post('/mcp', async (req, reply) => {
    const body = req.body;
    if (body === undefined) throw invalidJson('the body is empty');
    if (!isJsonRpcPayload(body)) throw new GatewayError('invalid_message', 'Invalid Request: the body is not a JSON-RPC 2.0 message or batch');
    let entry: StreamableSession;
    if (req.headers['mcp-session-id'] !== undefined) {
      entry = lookup(req);
    } else {
      const isInit = Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
      if (!isInit) throw new GatewayError('bad_request', 'Bad Request: no session; the first request must be initialize');
      admitSession(ctx, reply);
      entry = openSession(ctx, req.ip);
    }
    entry.session.touch();
    reply.hijack();
    ctx.requests.track(reply.raw);
    await entry.transport.handleRequest(req.raw, reply.raw, body);
    return reply;
  });

  app.get('/mcp', async (req, reply) => {
    const entry = lookup(req);
    entry.session.touch();
    reply.hijack();
    await entry.transport.handleRequest(req.raw, reply.raw);
    return reply;
  });

  app.delete('/mcp', async (req, reply) => {
    const entry = lookup(req);
    reply.hijack();
    await entry.transport.handleRequest(req.raw, reply.raw);
    return reply;
  });

  app.route({
    method: ['PUT', 'PATCH', 'OPTIONS'],
    url: '/mcp',
    handler: async (req, reply) => {
      reply.header('allow', 'GET, POST, DELETE');
      throw new GatewayError('method_not_allowed', `Method not allowed: ${req.method} /mcp (use POST, GET or DELETE)`);
    },
  });
}

function openSession(ctx: McpContext, clientIp: string): StreamableSession {
  let session!: ClientSession;
  const transport = new NodeStreamableHttpTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => {
      session.id = id;
      ctx.sessions.add(session);
    },
    // The client closed a POST before its answers: cancel those requests (the backend is told).
    onrequestsabandoned: (ids) => session.abandon(ids, 'client closed the request stream'),
  });
  const server = createSessionServer(ctx, () => session);
  session = new ClientSession('streamable-http', server, clientIp, transport);
  transport.onclose = () => {
    if (session.id) void ctx.sessions.forget(session.id);
  };
  // connect() only wires the transport; it cannot fail for a fresh one.
  void server.connect(transport);
  return { session, transport };
}
