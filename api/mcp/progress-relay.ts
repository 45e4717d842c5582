/**
 * Progress for a client that asked for it (a `progressToken` in its
 * request's `_meta`): each update a backend reports goes to that request's
 * own response stream under the client's token, in either revision.
 */
import type { ServerContext } from '@modelcontextprotocol/server';
import type { ProgressHandler } from '../../runtime/routing/caller.js';

export function progressRelay(ctx: ServerContext): ProgressHandler | undefined {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return undefined;
  return (p) => {
    void ctx.mcpReq.notify({ method: 'notifications/progress', params: { ...p, progressToken: token } }).catch(() => undefined);
  };
}
