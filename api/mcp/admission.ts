/** The session limit at the door of /mcp and /sse. */
import type { FastifyReply } from 'fastify';
import type { McpContext } from './mcp-context.js';
import { SESSION_RETRY_AFTER_S } from './session-table.js';

/** Refuses a new session beyond `server.max_sessions` (503 with Retry-After); open sessions are not disturbed. */
export function admitSession(ctx: McpContext, reply: FastifyReply): void {
  try {
    ctx.sessions.admit();
  } catch (err) {
    reply.header('retry-after', String(SESSION_RETRY_AFTER_S));
    throw err;
  }
}
