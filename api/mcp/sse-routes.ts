/**
 * `/sse`: the legacy HTTP+SSE transport. GET opens the event stream and
 * announces the POST endpoint (`/messages?sessionId=…`); messages arrive there.
 */
import type { FastifyInstance } from 'fastify';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { ClientSession } from './client-session.js';
import { createSessionServer } from './session-server.js';
import type { McpContext } from './mcp-context.js';
import { jsonRpcErrorBody } from '../error-mapping.js';

export const SSE_MESSAGES_PATH = '/messages';

export async function sseRoutes(app: FastifyInstance, ctx: McpContext): Promise<void> {
  const transports = new Map<string, SSEServerTransport>();

  app.get('/sse', async (req, reply) => {
    reply.hijack();
    const transport = new SSEServerTransport(SSE_MESSAGES_PATH, reply.raw);
    const server = createSessionServer(ctx, () => session);
    const session = new ClientSession('sse', server, req.ip);
    session.id = transport.sessionId;
    transports.set(session.id, transport);
    ctx.sessions.add(session);
    transport.onclose = () => {
      transports.delete(session.id);
      void ctx.sessions.forget(session.id);
    };
    await server.connect(transport);
    return reply;
  });

  app.post(SSE_MESSAGES_PATH, async (req, reply) => {
    const id = (req.query as { sessionId?: string }).sessionId;
    const transport = id ? transports.get(id) : undefined;
    if (!transport) {
      return reply.code(404).send(jsonRpcErrorBody(-32001, `Session not found: ${id ?? '(none)'}`));
    }
    ctx.sessions.get(id!)?.touch();
    reply.hijack();
    await transport.handlePostMessage(req.raw, reply.raw, req.body);
    return reply;
  });
}
