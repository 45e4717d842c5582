/** The door of /mcp and /sse: the session limit, and a draining replica. */
import type { FastifyReply } from 'fastify';
import type { McpContext } from './mcp-context.js';
import { SESSION_RETRY_AFTER_S } from './session-table.js';
import { DrainingError } from '../../schemas/errors.js';

/** Refuses a new session beyond `server.max_sessions` (503 with Retry-After); open sessions are not disturbed. */
export function admitSession(ctx: McpContext, reply: FastifyReply): void {
  try {
    ctx.sessions.admit();
  } catch (err) {
    reply.header('retry-after', String(SESSION_RETRY_AFTER_S));
    throw err;
  }
}

/** A draining replica (SIGTERM with shared sessions) takes no new session or stream: the client goes to another one. */
export function refuseWhileDraining(ctx: McpContext): void {
  const retryS = ctx.drainingRetryS();
  if (retryS !== undefined) throw new DrainingError(retryS);
}
