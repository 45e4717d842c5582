/** What the MCP endpoints need from the rest of the gateway. */
import type { SessionServerDeps } from './session-server.js';
import type { SessionTable } from './session-table.js';
import type { RequestTracker } from './request-tracker.js';
import type { ClusterLink } from './cluster-link.js';
import type { IncomingAuth } from '../../runtime/access/incoming-auth.js';
import type { StatelessDispatch } from './stateless/stateless-dispatch.js';

export interface McpContext extends SessionServerDeps {
  sessions: SessionTable;
  /** Who a request is from (`incoming_auth`). */
  incomingAuth: IncomingAuth;
  /** POST requests whose responses are still being written. */
  requests: RequestTracker;
  /** How long SSE events are kept for a resume, and a dropped stream's calls wait for one (`sessions.replay_s`, in ms). */
  replayMs: number;
  /** The other replicas, when sessions are shared (`sessions.store: redis`). */
  cluster?: ClusterLink;
  /** Where 2026-07-28 requests go: the gateway's framing of a tool call, or the stateless server (./stateless/). */
  stateless: StatelessDispatch;
  /**
   * Set while this replica drains (SIGTERM with shared sessions): no new
   * session or long-lived stream here; the client should go to another
   * replica in this many seconds.
   */
  drainingRetryS(): number | undefined;
}
