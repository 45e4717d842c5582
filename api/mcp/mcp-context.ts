/** What the MCP endpoints need from the rest of the gateway. */
import type { SessionServerDeps } from './session-server.js';
import type { SessionTable } from './session-table.js';
import type { RequestTracker } from './request-tracker.js';

export interface McpContext extends SessionServerDeps {
  sessions: SessionTable;
  /** POST requests whose responses are still being written. */
  requests: RequestTracker;
  /** How long SSE events are kept for a resume, and a dropped stream's calls wait for one (`sessions.replay_s`, in ms). */
  replayMs: number;
}
