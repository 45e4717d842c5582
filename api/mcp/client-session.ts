/** One MCP client session on /mcp or /sse: its SDK Server, transport and activity clock. */
import type { JSONRPCRequest, LoggingLevel, RequestId, Server, ServerNotification, Transport } from '@modelcontextprotocol/server';
import type { CallerTransport } from '../../runtime/routing/operation.js';
import type { ClientCapability, ClientEndpoint, ClientNotice } from '../../runtime/routing/client-fanout.js';
import type { ClientName, JsonObject, ProgressHandler } from '../../runtime/routing/caller.js';
import { PASSTHROUGH_RESULT } from '../../runtime/transports/passthrough-schema.js';
import { ANONYMOUS, type CallerIdentity } from '../../runtime/access/identity.js';
import type { ServeRequest, SessionServer } from './request-frame.js';
import { frameToolCalls } from './session-direct-calls.js';

export type InitializeParams = { protocolVersion: string; capabilities: Record<string, unknown>; clientInfo: Record<string, unknown> };

export type SessionTransport = Exclude<CallerTransport, 'management'>;

/** A request being handled: the controller that cancels it, fed by the SDK's own signal for that request. */
interface Handling {
  controller: AbortController;
  sdkSignal: AbortSignal;
  relay: () => void;
}

export class ClientSession implements ClientEndpoint {
  id = '';
  createdAt = Date.now();
  lastActivity = Date.now();
  logLevel?: LoggingLevel;
  /** The params of the client's initialize request, as it sent them (what another replica replays). */
  initializeParams?: InitializeParams;
  /** Requests the gateway is handling now, by JSON-RPC id, each with the controller that cancels it. */
  private readonly handling = new Map<RequestId, Handling>();
  /** Capability counts this session last saw: taken at initialization, updated by its list calls. */
  capabilitySnapshot = { tools: 0, resources: 0, prompts: 0 };
  /** Set once the client has finished initialization. */
  initialized = false;
  /** Requests sent to the client in the middle of its calls (elicitation, sampling, roots) not answered yet: its calls waiting for its input. */
  waitingInput = 0;
  /**
   * Who created the session (plain data): only requests with that owner's
   * credentials may use it. Refreshed by each of them, so new roles (a new
   * token, a reload) apply from the next request on.
   */
  identity: CallerIdentity = ANONYMOUS;

  /** The SDK Server that speaks MCP with this client (./session-server.ts). */
  readonly server: Server;
  /** How a request of this session is served, whoever framed it. */
  private readonly serve: ServeRequest;

  constructor(
    readonly transportType: SessionTransport,
    readonly clientIp: string,
    /** The session's own transport (the routes hand it their HTTP requests). */
    readonly transport: Transport,
    /** Makes the session's server, which answers for this session. */
    serverFor: (session: ClientSession) => SessionServer,
  ) {
    const made = serverFor(this);
    this.server = made.server;
    this.serve = made.serve;
  }

  /**
   * Connects the session's SDK Server to its transport, and puts the
   * gateway's own framing of tool calls in front of it
   * (./session-direct-calls.ts). Both are wired before the first await.
   */
  connect(): Promise<void> {
    const connected = this.server.connect(this.transport);
    frameToolCalls(this.transport, this.server, this.serve, () => this.initialized);
    return connected;
  }

  touch(): void {
    this.lastActivity = Date.now();
  }

  /** The client's name from initialize, once known. */
  get clientName(): string | null {
    return this.server.getClientVersion()?.name ?? null;
  }

  /** The client program as initialize named it, once known. */
  get client(): ClientName | undefined {
    const info = this.server.getClientVersion();
    return info && { name: info.name, version: info.version };
  }

  /** What a session record says of the client (GET /sessions): its name, version and revision, null before it initialized. */
  describedClient(): { client_name: string | null; client_version: string | null; protocol_version: string | null } {
    const info = this.server.getClientVersion();
    return { client_name: info?.name ?? null, client_version: info?.version ?? null, protocol_version: this.protocolVersion ?? null };
  }

  /** The protocol revision initialize settled on, once known. */
  get protocolVersion(): string | undefined {
    return this.server.getNegotiatedProtocolVersion();
  }

  /** What the client declared at initialize it can answer. */
  get capabilities(): Readonly<Record<string, unknown>> | undefined {
    return this.server.getClientCapabilities();
  }

  can(capability: ClientCapability): boolean {
    return this.server.getClientCapabilities()?.[capability] !== undefined;
  }

  /** A notification to the client; with `relatedRequestId`, on that request's stream (streamable HTTP). */
  notify(notification: ClientNotice, relatedRequestId?: RequestId): Promise<void> {
    return this.server.notification(notification as ServerNotification, relatedRequestId === undefined ? undefined : { relatedRequestId });
  }

  /** A request to the client (sampling, elicitation, roots) with the answer as the client gave it. */
  request(request: Pick<JSONRPCRequest, 'method' | 'params'>, signal: AbortSignal, onprogress?: ProgressHandler): Promise<JsonObject> {
    return this.server.request({ method: request.method, params: request.params }, PASSTHROUGH_RESULT, { signal, ...(onprogress ? { onprogress } : {}) });
  }

  /** A request to the client in the middle of one of its calls, counted in `waitingInput` until it is answered (or not). */
  async askDuringCall(ask: () => Promise<JsonObject>): Promise<JsonObject> {
    this.waitingInput++;
    try {
      return await ask();
    } finally {
      this.waitingInput--;
    }
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
    // One controller that the SDK's signal is relayed to, rather than AbortSignal.any():
    // in Node 20 that costs tens of microseconds per call (weak references, a finalization registry).
    const controller = new AbortController();
    const relay = () => controller.abort(sdkSignal.reason);
    if (sdkSignal.aborted) relay();
    else sdkSignal.addEventListener('abort', relay, { once: true });
    this.handling.set(id, { controller, sdkSignal, relay });
    return controller.signal;
  }

  /** `signal` is what begin() returned: a client that reused an id must not lose the newer request's relay. */
  end(id: RequestId, signal: AbortSignal): void {
    const h = this.handling.get(id);
    if (!h || h.controller.signal !== signal) return;
    this.handling.delete(id);
    h.sdkSignal.removeEventListener('abort', h.relay);
  }

  /** The client will never read these answers: cancel the work. */
  abandon(ids: readonly RequestId[], reason: string): void {
    for (const id of ids) this.handling.get(id)?.controller.abort(reason);
  }

  close(): Promise<void> {
    return this.server.close();
  }
}
