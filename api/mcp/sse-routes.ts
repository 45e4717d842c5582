/**
 * `/sse`: the legacy HTTP+SSE transport. GET opens the event stream and
 * announces the POST endpoint (`/messages?sessionId=…`); messages arrive there
 * and every answer goes out on the stream.
 */
import type { FastifyInstance } from 'fastify';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';
import { GatewayError, InvalidMessageError, RequestIdInFlightError, SessionNotFoundError } from '../../schemas/errors.js';
import { unanswerableRefusal } from '../error-mapping.js';
import { isJsonRpcMessage, isRequestMessage, unanswerableReason } from '../../runtime/transports/json-rpc.js';
import { ClientSession } from './client-session.js';
import { createSessionServer } from './session-server.js';
import type { McpContext } from './mcp-context.js';
import { admitSession, refuseWhileDraining } from './admission.js';
import { claimSession } from './session-owner.js';
import { ANONYMOUS } from '../../runtime/access/identity.js';
import { SseServerTransport } from './sse-server-transport.js';

export const SSE_MESSAGES_PATH = '/messages';

export async function sseRoutes(app: FastifyInstance, ctx: McpContext): Promise<void> {
  app.get('/sse', async (req, reply) => {
    refuseWhileDraining(ctx);
    admitSession(ctx);
    reply.hijack();
    const transport = new SseServerTransport(SSE_MESSAGES_PATH, reply.raw);
    const session = new ClientSession('sse', req.ip, transport, (s) => createSessionServer(ctx, s));
    session.identity = req.identity ?? ANONYMOUS;
    session.id = transport.sessionId;
    // A legacy /sse session is bound to its one connection: it is never shared, so adding it cannot be refused.
    await ctx.sessions.add(session);
    transport.onclose = () => {
      void ctx.sessions.forget(session.id);
    };
    await session.connect();
    return reply;
  });

  app.post(SSE_MESSAGES_PATH, async (req, reply) => {
    const id = (req.query as { sessionId?: string }).sessionId;
    // The session store is the one table of sessions; a /mcp session id is unknown here.
    const session = id ? ctx.sessions.get(id) : undefined;
    const transport = session?.transport;
    if (!(transport instanceof SseServerTransport)) throw new SessionNotFoundError(`Session not found: ${id ?? '(none)'}`);
    claimSession(req, session!);
    const body = req.body;
    if (!isJsonRpcMessage(body)) throw new InvalidMessageError('Invalid Request: the body is not a JSON-RPC 2.0 message');
    const message = body as Record<string, unknown>;
    const unanswerable = unanswerableReason(message);
    // The SDK would drop it silently; no request may go unanswered. (On /sse answers travel on the stream: a refusal here is at the HTTP level.)
    if (unanswerable !== undefined) throw unanswerableRefusal(unanswerable, (message.id as RequestId) ?? null, false);
    if (isRequestMessage(message) && transport.inFlight.has(message.id as RequestId)) throw new RequestIdInFlightError([message.id as RequestId], false);
    session!.touch();
    transport.receive(body as JSONRPCMessage);
    return reply.code(202).type('text/plain').send('Accepted');
  });

  for (const [url, allow] of [
    ['/sse', 'GET'],
    [SSE_MESSAGES_PATH, 'POST'],
  ] as const) {
    app.route({
      method: ['PUT', 'PATCH', 'DELETE', 'OPTIONS', ...(allow === 'GET' ? (['POST'] as const) : (['GET'] as const))],
      url,
      handler: async (req, reply) => {
        reply.header('allow', allow);
        throw new GatewayError('method_not_allowed', `Method not allowed: ${req.method} ${url} (use ${allow})`);
      },
    });
  }
}
