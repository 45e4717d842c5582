/** What the MCP endpoints need from the rest of the gateway. */
import type { SessionServerDeps } from './session-server.js';
import type { SessionStore } from './session-store.js';

export interface McpContext extends SessionServerDeps {
  sessions: SessionStore;
}
