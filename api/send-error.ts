/**
 * Answers an error in the shape of the surface it hit: JSON-RPC on the MCP
 * endpoints (/mcp, /sse, /messages), the spec's `{error, message, details}`
 * everywhere else. Expected outcomes (a typed error) are not logged with a
 * stack; anything else is an internal error and is.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorBody, httpStatusOf, isExpected, mcpHttpError, toGatewayError } from './error-mapping.js';

const MCP_PATHS = new Set(['/mcp', '/sse', '/messages']);

export const isMcpPath = (url: string): boolean => MCP_PATHS.has(url.split('?')[0]!);

export function sendError(req: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  const typed = toGatewayError(err);
  if (!isExpected(typed)) req.log.error({ err, url: req.url }, 'request failed');
  else if (httpStatusOf(typed) >= 500) req.log.warn({ url: req.url, error: typed.code }, typed.message);
  if (isMcpPath(req.url)) {
    const { status, body } = mcpHttpError(typed);
    return reply.code(status).send(body);
  }
  return reply.code(httpStatusOf(typed)).send(errorBody(typed));
}
