/** What the MCP endpoints need from the rest of the gateway. */
import type { SessionServerDeps } from './session-server.js';
import type { SessionStore } from './session-store.js';
import type { RequestTracker } from './request-tracker.js';

export interface McpContext extends SessionServerDeps {
  sessions: SessionStore;
  /** POST requests whose responses are still being written. */
  requests: RequestTracker;
}
