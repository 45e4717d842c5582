/**
 * `/mcp`: the streamable HTTP transport. A POST without a session must be an
 * initialize request and creates the session; later POSTs, the GET stream and
 * DELETE name it in `Mcp-Session-Id`. Fastify parses the body; the session's
 * transport then owns the raw response (hence `reply.hijack()`). The transport
 * is our Node-native one (./node-streamable-http-transport.ts), not the SDK's:
 * see docs/performance.md.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { ClientSession } from './client-session.js';
import { NodeStreamableHttpTransport } from './node-streamable-http-transport.js';
import { createSessionServer } from './session-server.js';
import type { McpContext } from './mcp-context.js';
import { jsonRpcErrorBody } from '../error-mapping.js';

interface Transported {
  session: ClientSession;
  transport: NodeStreamableHttpTransport;
}

export async function streamableHttpRoutes(app: FastifyInstance, ctx: McpContext): Promise<void> {
  const transports = new Map<string, Transported>();

  const rpcError = (reply: FastifyReply, status: number, code: number, message: string) => reply.code(status).send(jsonRpcErrorBody(code, message));

  const lookup = (req: FastifyRequest, reply: FastifyReply): Transported | undefined => {
    const id = req.headers['mcp-session-id'];
    if (typeof id !== 'string' || !id) {
      void rpcError(reply, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
      return undefined;
    }
    const found = transports.get(id);
    // A session the store has let go (reaped, closing) is gone even while its transport closes.
    if (!found || ctx.sessions.get(id) !== found.session) {
      void rpcError(reply, 404, -32001, `Session not found: ${id}`);
      return undefined;
    }
    return found;
  };

  app.post('/mcp', async (req, reply) => {
    const id = req.headers['mcp-session-id'];
    let entry: Transported | undefined;
    if (id !== undefined) {
      entry = lookup(req, reply);
      if (!entry) return reply;
    } else {
      const body = req.body;
      const isInit = Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
      if (!isInit) return rpcError(reply, 400, -32000, 'Bad Request: no session; the first request must be initialize');
      entry = openSession(ctx, req.ip, transports);
    }
    entry.session.touch();
    reply.hijack();
    ctx.requests.track(reply.raw);
    await entry.transport.handleRequest(req.raw, reply.raw, req.body);
    return reply;
  });

  app.get('/mcp', async (req, reply) => {
    const entry = lookup(req, reply);
    if (!entry) return reply;
    entry.session.touch();
    reply.hijack();
    await entry.transport.handleRequest(req.raw, reply.raw);
    return reply;
  });

  app.delete('/mcp', async (req, reply) => {
    const entry = lookup(req, reply);
    if (!entry) return reply;
    reply.hijack();
    await entry.transport.handleRequest(req.raw, reply.raw);
    return reply;
  });
}

function openSession(ctx: McpContext, clientIp: string, transports: Map<string, Transported>): Transported {
  let session!: ClientSession;
  const transport = new NodeStreamableHttpTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => {
      session.id = id;
      transports.set(id, entry);
      ctx.sessions.add(session);
    },
  });
  const server = createSessionServer(ctx, () => session);
  session = new ClientSession('streamable-http', server, clientIp);
  const entry: Transported = { session, transport };
  transport.onclose = () => {
    if (!session.id) return;
    transports.delete(session.id);
    void ctx.sessions.forget(session.id);
  };
  // connect() only wires the transport; it cannot fail for a fresh one.
  void server.connect(transport);
  return entry;
}
