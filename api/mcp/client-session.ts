/** One MCP client session on /mcp or /sse: its SDK Server, transport and activity clock. */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { LoggingLevel, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { CallerTransport } from '../../runtime/routing/operation.js';

export type SessionTransport = Exclude<CallerTransport, 'management'>;

export class ClientSession {
  id = '';
  readonly createdAt = Date.now();
  lastActivity = Date.now();
  logLevel?: LoggingLevel;
  /** Requests the gateway is handling now, by JSON-RPC id, each with the controller that cancels it. */
  private readonly handling = new Map<RequestId, AbortController>();
  /** Capability counts this session last saw: taken at initialization, updated by its list calls. */
  capabilitySnapshot = { tools: 0, resources: 0, prompts: 0 };
  /** Set once the client has finished initialization. */
  initialized = false;

  constructor(
    readonly transportType: SessionTransport,
    readonly server: Server,
    readonly clientIp: string,
    /** The session's own transport (the routes hand it their HTTP requests). */
    readonly transport: Transport,
  ) {}

  touch(): void {
    this.lastActivity = Date.now();
  }

  /** Requests being handled now: a session with a call in flight is never idle. */
  get activeRequests(): number {
    return this.handling.size;
  }

  /**
   * Starts handling a request. The returned signal aborts when the SDK
   * cancels it (notifications/cancelled, session closed) or when the client
   * abandons it (closed its response stream): either way the backend is told.
   */
  begin(id: RequestId, sdkSignal: AbortSignal): AbortSignal {
    const controller = new AbortController();
    this.handling.set(id, controller);
    return AbortSignal.any([sdkSignal, controller.signal]);
  }

  end(id: RequestId): void {
    this.handling.delete(id);
  }

  /** The client will never read these answers: cancel the work. */
  abandon(ids: readonly RequestId[], reason: string): void {
    for (const id of ids) this.handling.get(id)?.abort(reason);
  }

  close(): Promise<void> {
    return this.server.close();
  }
}
