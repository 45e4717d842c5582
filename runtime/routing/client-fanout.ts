/**
 * Backend → client, in one place: which client sessions get what a backend
 * (or the route table) says. `list_changed` goes to every initialized
 * session; `resources/updated` to the sessions subscribed to that URI; a log
 * message to every session whose log level admits it, on the stream of its
 * request in flight at that backend when there is one (so it arrives before
 * that request's answer, as the backend sent it); a backend request that no
 * in-flight call explains goes to the most recently active session able to
 * answer it.
 *
 * While the authorization policies are on, a backend reaches only the
 * clients that are calling it: its log messages go to the sessions with a
 * request in flight there, and a request no call explains goes to nobody
 * (`roots/list` is answered with no roots), so a client never hears from a
 * backend it may not use.
 */
import {
  McpError,
  type LoggingLevel,
  type Notification,
  type JSONRPCRequest,
  type RequestId,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { RpcCode } from '../../schemas/json-rpc-codes.js';
import type { Logger } from '../observability/logging/logger.js';
import type { CallerContext, JsonObject, ProgressHandler } from './caller.js';
import type { ListKind } from './route-table.js';
import type { SubscriptionIndex } from './subscription-index.js';
import type { BackendTrafficTargets } from './backend-traffic.js';

export type ClientCapability = 'sampling' | 'elicitation' | 'roots';

/** What the fan-out needs of one client session (api/mcp/client-session.ts). */
export interface ClientEndpoint {
  readonly id: string;
  /** The client has finished initialization. */
  readonly initialized: boolean;
  readonly logLevel?: LoggingLevel;
  /** ms epoch of the last request. */
  readonly lastActivity: number;
  /** Whether the client declared this capability at initialization. */
  can(capability: ClientCapability): boolean;
  notify(notification: ServerNotification, relatedRequestId?: RequestId): Promise<void>;
  request(request: Pick<JSONRPCRequest, 'method' | 'params'>, signal: AbortSignal, onprogress?: ProgressHandler): Promise<JsonObject>;
}

/** The client sessions this process serves (api/mcp/session-table.ts). */
export interface ClientDirectory {
  get(id: string): ClientEndpoint | undefined;
  all(): Iterable<ClientEndpoint>;
  /**
   * The sessions whose list_changed this process announces: every session
   * it serves; with shared sessions, those whose GET stream it holds (each
   * replica tells the streams it holds, so a change every replica sees is
   * announced once per session).
   */
  listening(): Iterable<ClientEndpoint>;
}

const LOG_SEVERITY: Record<LoggingLevel, number> = {
  debug: 0,
  info: 1,
  notice: 2,
  warning: 3,
  error: 4,
  critical: 5,
  alert: 6,
  emergency: 7,
};

/** Client capability each backend-initiated request needs. */
const REQUIRED_CAPABILITY: Record<string, ClientCapability> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

const LIST_CHANGED: Record<ListKind, ServerNotification> = {
  tools: { method: 'notifications/tools/list_changed' },
  prompts: { method: 'notifications/prompts/list_changed' },
  resources: { method: 'notifications/resources/list_changed' },
};

export class ClientFanout implements BackendTrafficTargets {
  constructor(
    private readonly sessions: ClientDirectory,
    private readonly subscriptions: Pick<SubscriptionIndex, 'subscribers'>,
    private readonly log: Logger,
    /** Whether the authorization policies are on (runtime/access): backends then reach only their callers. */
    private readonly restricted: () => boolean = () => false,
  ) {}

  /** Tells every initialized session which lists changed. */
  listsChanged(changed: ReadonlySet<ListKind>): void {
    for (const s of this.sessions.listening()) {
      if (!s.initialized) continue;
      for (const kind of changed) void s.notify(LIST_CHANGED[kind]).catch(() => undefined);
    }
  }

  notify(backend: string, n: Notification, inFlight: readonly CallerContext[]): void {
    if (n.method === 'notifications/resources/updated') return this.resourceUpdated(n);
    if (n.method === 'notifications/message') return this.logMessage(backend, n, inFlight);
    this.log.debug({ backend, method: n.method }, 'backend notification not forwarded');
  }

  /** A backend request no in-flight call explains (typically roots/list right after connecting). */
  requestAnyClient(request: JSONRPCRequest, signal: AbortSignal, onprogress?: ProgressHandler): Promise<JsonObject> {
    const capability = REQUIRED_CAPABILITY[request.method];
    let target: ClientEndpoint | undefined;
    for (const s of this.restricted() ? [] : this.sessions.all()) {
      if (!s.initialized || (capability && !s.can(capability))) continue;
      if (!target || s.lastActivity > target.lastActivity) target = s;
    }
    if (!target) {
      if (request.method === 'roots/list') return Promise.resolve({ roots: [] });
      return Promise.reject(new McpError(RpcCode.InvalidRequest, `no client session can answer ${request.method}`));
    }
    return target.request({ method: request.method, params: request.params }, signal, onprogress);
  }

  private resourceUpdated(n: Notification): void {
    const uri = (n.params as { uri?: string } | undefined)?.uri;
    if (!uri) return;
    for (const id of this.subscriptions.subscribers(uri)) {
      void this.sessions
        .get(id)
        ?.notify(n as ServerNotification)
        .catch(() => undefined);
    }
  }

  private logMessage(backend: string, n: Notification, inFlight: readonly CallerContext[]): void {
    const original = (n.params ?? {}) as JsonObject;
    const message = { method: n.method, params: { ...original, logger: original.logger ?? backend } } as ServerNotification;
    const level = original.level as LoggingLevel;
    // The newest in-flight request of each session at this backend.
    const related = new Map<string, RequestId>();
    for (const caller of inFlight) if (caller.requestId !== undefined) related.set(caller.sessionId, caller.requestId);
    const restricted = this.restricted();
    for (const s of this.sessions.all()) {
      if (!s.initialized || (s.logLevel && LOG_SEVERITY[level] < LOG_SEVERITY[s.logLevel])) continue;
      if (restricted && !related.has(s.id)) continue;
      void s.notify(message, related.get(s.id)).catch(() => undefined);
    }
  }
}
