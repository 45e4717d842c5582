/** The door of /mcp and /sse: the session limit, and a draining replica. */
import type { McpContext } from './mcp-context.js';
import { DrainingError } from '../../schemas/errors.js';

/**
 * Refuses a new session beyond `server.max_sessions`, or while the shared
 * store is out of reach (503; the error says when to come back, and
 * api/error-mapping.ts makes that its Retry-After); open sessions are not disturbed.
 */
export function admitSession(ctx: McpContext): void {
  ctx.sessions.admit();
}

/** A draining replica (SIGTERM with shared sessions) takes no new session or stream: the client goes to another one. */
export function refuseWhileDraining(ctx: McpContext): void {
  const retryS = ctx.drainingRetryS();
  if (retryS !== undefined) throw new DrainingError(retryS);
}
