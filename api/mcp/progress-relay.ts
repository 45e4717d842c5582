/**
 * Progress for a client that asked for it (a `progressToken` in its
 * request's `_meta`): each update a backend reports goes to that request's
 * own response stream under the client's token, in either revision.
 */
import type { PeerMessage, ProgressHandler } from '../../runtime/routing/caller.js';

/** The relay for a request's `progressToken` (none asked: none), sending with `notify`. */
export function progressRelayFor(token: string | number | undefined, notify: (n: PeerMessage) => void): ProgressHandler | undefined {
  if (token === undefined) return undefined;
  return (p) => notify({ method: 'notifications/progress', params: { ...p, progressToken: token } });
}
