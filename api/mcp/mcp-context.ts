/** What the MCP endpoints need from the rest of the gateway. */
import type { SessionServerDeps } from './session-server.js';
import type { SessionTable } from './session-table.js';
import type { RequestTracker } from './request-tracker.js';
import type { IncomingAuth } from '../../runtime/access/incoming-auth.js';

export interface McpContext extends SessionServerDeps {
  sessions: SessionTable;
  /** Who a request is from (`incoming_auth`). */
  incomingAuth: IncomingAuth;
  /** POST requests whose responses are still being written. */
  requests: RequestTracker;
}
