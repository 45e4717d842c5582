/**
 * Backend → client, in one place: which clients get what a backend (or the
 * route table) says, in either protocol revision.
 *
 * - `list_changed` goes to every initialized 2025-11-25 session, and to every
 *   2026-07-28 listen stream that opted in to that kind;
 * - `resources/updated` to the sessions and listen streams subscribed to
 *   that URI (the subscription index holds both);
 * - a log message to every session whose log level admits it, on the stream
 *   of its request in flight at that backend when there is one (so it arrives
 *   before that request's answer, as the backend sent it), and to each
 *   stateless request in flight there whose own log level admits it, on that
 *   request's stream (a 2026-07-28 request that named no level gets none);
 * - a backend request that no in-flight call explains goes to the most
 *   recently active session able to answer it.
 *
 * With shared sessions, the list changes this replica sees also reach the
 * other replicas' listen streams, and theirs reach the streams here (a relay
 * hook: runtime/cluster/list-changes-relay.ts).
 *
 * While the authorization policies are on, a backend reaches only the
 * clients that are calling it: its log messages go to the callers with a
 * request in flight there, and a request no call explains goes to nobody
 * (`roots/list` is answered with no roots), so a client never hears from a
 * backend it may not use. Who may hear a resource's updates was decided when
 * it subscribed (a subscription needs what a read needs).
 */
import { RpcRefusal } from '../../schemas/errors.js';
import { RpcCode } from '../../schemas/json-rpc-codes.js';
import { admitsLogLevel } from '../../schemas/mcp-log-levels.js';
import type { Logger } from '../observability/logging/logger.js';
import type { CallerContext, JsonObject, PeerMessage, ProgressHandler } from './caller.js';
import type { ListKind } from './route-table.js';
import type { SubscriptionIndex } from './subscription-index.js';
import type { BackendTrafficTargets } from './backend-traffic.js';

export type ClientCapability = 'sampling' | 'elicitation' | 'roots';

/** A notification for a client, in any revision's vocabulary. */
export type ClientNotice = PeerMessage;

type RequestId = string | number;

/** What the fan-out needs of one 2025-11-25 client session (api/mcp/client-session.ts). */
export interface ClientEndpoint {
  readonly id: string;
  /** The client has finished initialization. */
  readonly initialized: boolean;
  readonly logLevel?: string;
  /** ms epoch of the last request. */
  readonly lastActivity: number;
  /** Whether the client declared this capability at initialization. */
  can(capability: ClientCapability): boolean;
  notify(notification: ClientNotice, relatedRequestId?: RequestId): Promise<void>;
  request(request: PeerMessage, signal: AbortSignal, onprogress?: ProgressHandler): Promise<JsonObject>;
}

/** A 2026-07-28 `subscriptions/listen` stream (api/mcp/modern/listen-streams.ts): it takes what it opted in to. */
export interface ListenEndpoint {
  readonly id: string;
  listChanged(kind: ListKind): void;
  resourceUpdated(notification: ClientNotice): void;
}

/**
 * Where the list changes this replica sees also go, when replicas share
 * sessions: the other replicas' listen streams (runtime/cluster/list-changes-relay.ts).
 */
export interface ListenRelay {
  /** This replica's lists changed: tells the others; answers which kinds its own listen streams have not been told yet. */
  local(changed: ReadonlySet<ListKind>): ReadonlySet<ListKind>;
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

/** Client capability each backend-initiated request needs. */
const REQUIRED_CAPABILITY: Record<string, ClientCapability> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

const LIST_CHANGED: Record<ListKind, ClientNotice> = {
  tools: { method: 'notifications/tools/list_changed' },
  prompts: { method: 'notifications/prompts/list_changed' },
  resources: { method: 'notifications/resources/list_changed' },
};

export class ClientFanout implements BackendTrafficTargets {
  /** The 2026-07-28 listen streams open here, by subscriber id (the subscription index names them too). */
  private readonly listeners = new Map<string, ListenEndpoint>();

  private relay?: ListenRelay;

  constructor(
    private readonly sessions: ClientDirectory,
    private readonly subscriptions: Pick<SubscriptionIndex, 'subscribers'>,
    private readonly log: Logger,
    /** Whether the authorization policies are on (runtime/access): backends then reach only their callers. */
    private readonly restricted: () => boolean = () => false,
  ) {}

  /** A listen stream opened here; the returned function removes it. */
  addListener(listener: ListenEndpoint): () => void {
    this.listeners.set(listener.id, listener);
    return () => {
      if (this.listeners.get(listener.id) === listener) this.listeners.delete(listener.id);
    };
  }

  /** Tells every initialized session and every listen stream which lists changed. */
  listsChanged(changed: ReadonlySet<ListKind>): void {
    for (const s of this.sessions.listening()) {
      if (!s.initialized) continue;
      for (const kind of changed) void s.notify(LIST_CHANGED[kind]).catch(() => undefined);
    }
    this.tellListeners(this.relay ? this.relay.local(changed) : changed);
  }

  /** From now on the list changes seen here reach the other replicas' listen streams too. */
  relayListens(relay: ListenRelay): void {
    this.relay = relay;
  }

  /** Tells the listen streams open here which lists changed (seen here, or by another replica). */
  tellListeners(changed: ReadonlySet<ListKind>): void {
    for (const l of this.listeners.values()) for (const kind of changed) l.listChanged(kind);
  }

  notify(backend: string, n: ClientNotice, inFlight: readonly CallerContext[]): void {
    if (n.method === 'notifications/resources/updated') return this.resourceUpdated(n);
    if (n.method === 'notifications/message') return this.logMessage(backend, n, inFlight);
    this.log.debug({ backend, method: n.method }, 'backend notification not forwarded');
  }

  /** A backend request no in-flight call explains (typically roots/list right after connecting). */
  requestAnyClient(request: PeerMessage, signal: AbortSignal, onprogress?: ProgressHandler): Promise<JsonObject> {
    const capability = REQUIRED_CAPABILITY[request.method];
    let target: ClientEndpoint | undefined;
    for (const s of this.restricted() ? [] : this.sessions.all()) {
      if (!s.initialized || (capability && !s.can(capability))) continue;
      if (!target || s.lastActivity > target.lastActivity) target = s;
    }
    if (!target) {
      if (request.method === 'roots/list') return Promise.resolve({ roots: [] });
      return Promise.reject(new RpcRefusal(RpcCode.InvalidRequest, `no client session can answer ${request.method}`));
    }
    return target.request(request, signal, onprogress);
  }

  private resourceUpdated(n: ClientNotice): void {
    const uri = (n.params as { uri?: string } | undefined)?.uri;
    if (!uri) return;
    for (const id of this.subscriptions.subscribers(uri)) {
      const listener = this.listeners.get(id);
      if (listener) listener.resourceUpdated(n);
      else
        void this.sessions
          .get(id)
          ?.notify(n)
          .catch(() => undefined);
    }
  }

  private logMessage(backend: string, n: ClientNotice, inFlight: readonly CallerContext[]): void {
    const original = n.params ?? {};
    const message: ClientNotice = { method: n.method, params: { ...original, logger: original.logger ?? backend } };
    const level = String(original.level);
    // The newest in-flight request of each session at this backend; stateless requests take theirs on their own stream.
    const related = new Map<string, RequestId>();
    for (const caller of inFlight) {
      const stream = caller.requestStream;
      if (stream) {
        if (stream.logLevel !== undefined && admitsLogLevel(stream.logLevel, level)) stream.notify(message);
      } else if (caller.requestId !== undefined) related.set(caller.sessionId, caller.requestId);
    }
    const restricted = this.restricted();
    for (const s of this.sessions.all()) {
      if (!s.initialized || (s.logLevel && !admitsLogLevel(s.logLevel, level))) continue;
      if (restricted && !related.has(s.id)) continue;
      void s.notify(message, related.get(s.id)).catch(() => undefined);
    }
  }
}
