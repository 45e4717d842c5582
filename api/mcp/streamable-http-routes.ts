/**
 * `/mcp`: the streamable HTTP transport. These routes only find the session
 * a request belongs to: a POST without a session that initializes one
 * creates it for its caller (within `server.max_sessions`: 503 beyond);
 * later POSTs, the GET stream and DELETE name it in `Mcp-Session-Id` (404
 * for an unknown one, or one another identity owns: ./session-owner.ts).
 * Everything else about the protocol (media types, message shape, batches,
 * the protocol version) is the transport's to check
 * (./node-streamable-http-transport.ts): it owns the raw response once a
 * route hands a request over (hence `reply.hijack()`). Errors before that
 * are answered as JSON-RPC by the plugin's error handler (./mcp-errors.ts).
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { GatewayError } from '../../schemas/errors.js';
import { ClientSession } from './client-session.js';
import { NodeStreamableHttpTransport } from './node-streamable-http-transport.js';
import { createSessionServer } from './session-server.js';
import type { McpContext } from './mcp-context.js';
import { admitSession } from './admission.js';
import { claimSession } from './session-owner.js';
import { ANONYMOUS } from '../../runtime/access/identity.js';

/** A /mcp session: one whose transport is the streamable HTTP one (an /sse session id is unknown here). */
interface StreamableSession {
  session: ClientSession;
  transport: NodeStreamableHttpTransport;
}

const initializes = (body: unknown): boolean => (Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body));

export async function streamableHttpRoutes(app: FastifyInstance, ctx: McpContext): Promise<void> {
  // The session table is the one table of sessions: a session it has let go (reaped, closing) is gone.
  const lookup = (req: FastifyRequest): StreamableSession => {
    const id = req.headers['mcp-session-id'];
    if (typeof id !== 'string' || !id) throw new GatewayError('bad_request', 'Bad Request: Mcp-Session-Id header is required');
    const session = ctx.sessions.get(id);
    if (!session || !(session.transport instanceof NodeStreamableHttpTransport)) throw new GatewayError('not_found', `Session not found: ${id}`);
    claimSession(req, session);
    return { session, transport: session.transport };
  };

  app.post('/mcp', async (req, reply) => {
    let entry: StreamableSession;
    if (req.headers['mcp-session-id'] !== undefined) {
      entry = lookup(req);
    } else if (initializes(req.body)) {
      admitSession(ctx, reply);
      entry = openSession(ctx, req);
    } else {
      return handOver(reply, () => NodeStreamableHttpTransport.refuseSessionless(req.raw, reply.raw, req.body));
    }
    entry.session.touch();
    ctx.requests.track(reply.raw);
    return handOver(reply, () => entry.transport.handlePost(req.raw, reply.raw, req.body));
  });

  app.get('/mcp', async (req, reply) => {
    const entry = lookup(req);
    entry.session.touch();
    return handOver(reply, () => entry.transport.handleGet(req.raw, reply.raw));
  });

  app.delete('/mcp', async (req, reply) => {
    const entry = lookup(req);
    return handOver(reply, () => entry.transport.handleDelete(req.raw, reply.raw));
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

/** The transport answers on the raw response from here on. */
async function handOver(reply: FastifyReply, answer: () => void | Promise<void>): Promise<FastifyReply> {
  reply.hijack();
  await answer();
  return reply;
}

function openSession(ctx: McpContext, req: FastifyRequest): StreamableSession {
  const transport = new NodeStreamableHttpTransport({ sessionIdGenerator: () => randomUUID() });
  const session = new ClientSession('streamable-http', req.ip, transport, (s) => createSessionServer(ctx, s));
  session.identity = req.identity ?? ANONYMOUS;
  transport.onsessioninitialized = (id) => {
    session.id = id;
    ctx.sessions.add(session);
  };
  // The client closed a POST before its answers: cancel those requests (the backend is told).
  transport.onrequestsabandoned = (ids) => session.abandon(ids, 'client closed the request stream');
  transport.onclose = () => {
    if (session.id) void ctx.sessions.forget(session.id);
  };
  // connect() only wires the transport; it cannot fail for a fresh one.
  void session.server.connect(transport);
  return { session, transport };
}
