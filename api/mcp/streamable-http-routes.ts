/**
 * `/mcp`: the streamable HTTP transport, both revisions. A POST is first
 * routed by the revision it speaks (./request-revision.ts): a 2026-07-28
 * request is served statelessly (./stateless/). For 2025-11-25 these routes
 * only find the session a request belongs to: a POST without a session that initializes one
 * creates it for its caller (within `server.max_sessions`: 503 beyond);
 * later POSTs, the GET stream and DELETE name it in `Mcp-Session-Id` (404
 * for an unknown one, or one another identity owns: ./session-owner.ts).
 * With shared sessions a session this replica does not serve yet is taken up
 * from the store (503 with Retry-After while the store is unreachable: the
 * session still exists). Everything else about the protocol (media types,
 * message shape, batches, the protocol version) is the transport's to check
 * (./node-streamable-http-transport.ts): it owns the raw response once a
 * route hands a request over (hence `reply.hijack()`). Errors before that
 * are answered as JSON-RPC by the plugin's error handler (./mcp-errors.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isInitializeRequest } from '@modelcontextprotocol/server';
import { GatewayError } from '../../schemas/errors.js';
import { NodeStreamableHttpTransport } from './node-streamable-http-transport.js';
import type { McpContext } from './mcp-context.js';
import { admitSession, refuseWhileDraining } from './admission.js';
import type { InitializeParams } from './client-session.js';
import { adoptSession, openSession, type StreamableSession } from './streamable-sessions.js';
import { claimSession } from './session-owner.js';
import { ANONYMOUS } from '../../runtime/access/identity.js';
import { routeByRevision } from './request-revision.js';
import { serveStateless } from './stateless/stateless-requests.js';

const initializeOf = (body: unknown): InitializeParams | undefined => {
  const init = (Array.isArray(body) ? body : [body]).find((m) => isInitializeRequest(m)) as { params: InitializeParams } | undefined;
  return init?.params;
};

export async function streamableHttpRoutes(app: FastifyInstance, ctx: McpContext): Promise<void> {
  const adopt = (state: Parameters<typeof adoptSession>[1]) => adoptSession(ctx, state);
  const idOf = (req: FastifyRequest): string => {
    const id = req.headers['mcp-session-id'];
    if (typeof id !== 'string' || !id) throw new GatewayError('bad_request', 'Bad Request: Mcp-Session-Id header is required');
    return id;
  };
  const streamable = (req: FastifyRequest, id: string, session: StreamableSession['session'] | undefined): StreamableSession => {
    if (!session || !(session.transport instanceof NodeStreamableHttpTransport)) throw new GatewayError('not_found', `Session not found: ${id}`);
    claimSession(req, session);
    return { session, transport: session.transport };
  };
  // The session table is the one table of sessions: a session it has let go (reaped, closing) is gone.
  // A session served here is found without a wait; only one this replica does not serve yet is looked up.
  const cached = (req: FastifyRequest): { id: string; entry?: StreamableSession } => {
    const id = idOf(req);
    const session = ctx.sessions.get(id);
    return { id, entry: session ? streamable(req, id, session) : undefined };
  };
  const lookup = async (req: FastifyRequest, id: string): Promise<StreamableSession> => streamable(req, id, await ctx.sessions.resolve(id, adopt));

  app.post('/mcp', async (req, reply) => {
    const route = routeByRevision(req);
    if (route.kind === 'stateless') return serveStateless(ctx, req, reply, route.request, route.classification);
    if (route.kind === 'stateless-notification') return reply.code(202).send();
    let entry: StreamableSession;
    if (req.headers['mcp-session-id'] !== undefined) {
      const found = cached(req);
      entry = found.entry ?? (await lookup(req, found.id));
    } else if (initializes(req.body)) {
      refuseWhileDraining(ctx);
      admitSession(ctx);
      entry = openSession(ctx, req.ip, initializeOf(req.body), req.identity ?? ANONYMOUS);
    } else {
      return handOver(reply, () => NodeStreamableHttpTransport.refuseSessionless(req.raw, reply.raw, req.body));
    }
    entry.session.touch();
    ctx.requests.track(reply.raw);
    return handOver(reply, () => entry.transport.handlePost(req.raw, reply.raw, req.body));
  });

  app.get('/mcp', async (req, reply) => {
    const found = cached(req);
    // A draining replica takes no new stream: the client reconnects to another one.
    refuseWhileDraining(ctx);
    const entry = found.entry ?? (await lookup(req, found.id));
    entry.session.touch();
    return handOver(reply, () => entry.transport.handleGet(req.raw, reply.raw));
  });

  app.delete('/mcp', async (req, reply) => {
    const found = cached(req);
    const entry = found.entry ?? (await lookup(req, found.id));
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

const initializes = (body: unknown): boolean => (Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body));

/** The transport answers on the raw response from here on. */
async function handOver(reply: FastifyReply, answer: () => void | Promise<void>): Promise<FastifyReply> {
  reply.hijack();
  await answer();
  return reply;
}
