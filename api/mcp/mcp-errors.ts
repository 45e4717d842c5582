/**
 * The error handler of the MCP endpoints (/mcp, /sse, /messages): whatever
 * went wrong before a transport took the request (bad JSON, wrong media type,
 * too large, unknown session, a refused Host), the answer is a JSON-RPC error
 * body at the HTTP level, with the status the transport standard gives it,
 * and `Retry-After` when the error says when to come back.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorHeaders, mcpHttpError } from '../error-mapping.js';
import { reportRequestError } from '../request-errors.js';

export async function mcpErrorHandler(err: unknown, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const typed = reportRequestError(req, err);
  const { status, body } = mcpHttpError(typed);
  // "Come back later" (the session limit, an unreachable session store, a draining replica) says when: errorHeaders.
  return reply.code(status).headers(errorHeaders(typed)).send(body);
}
