/** One MCP client session on /mcp or /sse: its SDK Server, transport and activity clock. */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { CallerTransport } from '../../runtime/routing/operation.js';

export type SessionTransport = Exclude<CallerTransport, 'management'>;

export class ClientSession {
  id = '';
  readonly createdAt = Date.now();
  lastActivity = Date.now();
  logLevel?: LoggingLevel;
  /** Requests being handled now: a session with a call in flight is never idle. */
  activeRequests = 0;
  /** Capability counts this session last saw: taken at initialization, updated by its list calls. */
  capabilitySnapshot = { tools: 0, resources: 0, prompts: 0 };
  /** Set once the client has finished initialization. */
  initialized = false;

  constructor(
    readonly transportType: SessionTransport,
    readonly server: Server,
    readonly clientIp: string,
  ) {}

  touch(): void {
    this.lastActivity = Date.now();
  }

  close(): Promise<void> {
    return this.server.close();
  }
}
