/**
 * All live client sessions of /mcp and /sse. It reaps sessions idle past the
 * TTL (the SDK never does), fans registry changes out as `list_changed`
 * notifications, and delivers backend notifications to the right sessions.
 */
import { McpError, type Notification, type JSONRPCRequest, type LoggingLevel, type ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { RpcCode } from '../../schemas/json-rpc-codes.js';
import type { Logger } from '../../runtime/observability/logging/logger.js';
import type { ListKind } from '../../runtime/backends/serving-backends.js';
import type { ResourceSubscriptions } from '../../runtime/routing/resource-subscriptions.js';
import type { CallerContext, JsonObject, ProgressHandler } from '../../runtime/routing/caller.js';
import type { ClientSession } from './client-session.js';
import { PASSTHROUGH } from '../../runtime/transports/passthrough-schema.js';
import type { SessionRecord } from '../../schemas/api.js';
import { TooManySessionsError } from '../../schemas/errors.js';

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
const REQUIRED_CAPABILITY: Record<string, 'sampling' | 'elicitation' | 'roots'> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

export interface SessionLimits {
  /** Seconds a session may stay idle before the reaper closes it (`server.session_ttl`). */
  ttlSeconds: number;
  /** Sessions open at once (`server.max_sessions`). */
  maxSessions: number;
}

/** What a client refused for the session limit is told to wait before trying again. */
export const SESSION_RETRY_AFTER_S = 5;

export class SessionStore {
  private readonly sessions = new Map<string, ClientSession>();
  private reaper?: NodeJS.Timeout;
  private ttlSeconds: number;
  private maxSessions: number;

  constructor(
    limits: SessionLimits,
    private readonly subscriptions: ResourceSubscriptions,
    private readonly log: Logger,
  ) {
    this.ttlSeconds = limits.ttlSeconds;
    this.maxSessions = limits.maxSessions;
  }

  /** New limits (a reload): the reaper follows a TTL change; a lower session limit only refuses new sessions. */
  setLimits(limits: SessionLimits): void {
    const restart = this.reaper !== undefined && limits.ttlSeconds !== this.ttlSeconds;
    this.ttlSeconds = limits.ttlSeconds;
    this.maxSessions = limits.maxSessions;
    if (restart) this.startReaper();
  }

  /**
   * Throws TooManySessionsError (HTTP 503 with Retry-After) when a new session
   * would exceed the limit; sessions already open are never disturbed.
   */
  admit(): void {
    if (this.sessions.size >= this.maxSessions) throw new TooManySessionsError(this.maxSessions, SESSION_RETRY_AFTER_S);
  }

  startReaper(): void {
    clearInterval(this.reaper);
    // Check often enough that a session outlives its TTL by at most a quarter of it (and at most a minute).
    const everyMs = Math.max(50, Math.min(60_000, (this.ttlSeconds * 1000) / 4));
    this.reaper = setInterval(() => void this.reapExpired(), everyMs);
    this.reaper.unref();
  }

  add(session: ClientSession): void {
    this.sessions.set(session.id, session);
  }

  get(id: string): ClientSession | undefined {
    return this.sessions.get(id);
  }

  /** Forgets a session whose transport closed (client DELETE, SSE disconnect). */
  async forget(id: string): Promise<void> {
    if (!this.sessions.delete(id)) return;
    await this.subscriptions.dropSession(id);
  }

  async close(id: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    await this.forget(id);
    await session.close().catch(() => undefined);
  }

  async closeAll(): Promise<void> {
    clearInterval(this.reaper);
    this.reaper = undefined;
    await Promise.all([...this.sessions.keys()].map((id) => this.close(id)));
  }

  get size(): number {
    return this.sessions.size;
  }

  /** A session is expired once idle (no request in progress) for longer than the TTL; the reaper then closes it. */
  isExpired(s: ClientSession, now = Date.now()): boolean {
    return s.activeRequests === 0 && now - s.lastActivity > this.ttlSeconds * 1000;
  }

  async reapExpired(): Promise<number> {
    const now = Date.now();
    const expired = [...this.sessions.values()].filter((s) => this.isExpired(s, now));
    for (const s of expired) this.log.info({ session: s.id, idle_s: Math.round((now - s.lastActivity) / 1000) }, 'closing idle client session');
    await Promise.all(expired.map((s) => this.close(s.id)));
    return expired.length;
  }

  records(): SessionRecord[] {
    const now = Date.now();
    return [...this.sessions.values()].map((s) => ({
      id: s.id,
      transport_type: s.transportType,
      client_name: s.server.getClientVersion()?.name ?? null,
      tool_count: s.capabilitySnapshot.tools,
      capability_snapshot: { ...s.capabilitySnapshot },
      age_seconds: (now - s.createdAt) / 1000,
      idle_seconds: (now - s.lastActivity) / 1000,
      // Spec 2.4 has an integer; a fractional session_ttl (tests use them) is reported rounded up.
      ttl: Math.ceil(this.ttlSeconds),
      expired: this.isExpired(s, now),
    }));
  }

  /** Tells every initialized session which lists changed. */
  broadcastListChanged(changed: ReadonlySet<ListKind>): void {
    for (const s of this.sessions.values()) {
      if (!s.initialized) continue;
      if (changed.has('tools')) void s.server.sendToolListChanged().catch(() => undefined);
      if (changed.has('prompts')) void s.server.sendPromptListChanged().catch(() => undefined);
      if (changed.has('resources')) void s.server.sendResourceListChanged().catch(() => undefined);
    }
  }

  /**
   * Resource updates go to subscribers; log messages to every session whose
   * level admits them. A session with a request in flight at that backend gets
   * the message on that request's stream (streamable HTTP), so it arrives
   * before the request's answer, as the backend sent it.
   */
  deliverBackendNotification(backend: string, n: Notification, inFlight: readonly CallerContext[] = []): void {
    if (n.method === 'notifications/resources/updated') {
      const uri = (n.params as { uri?: string } | undefined)?.uri;
      if (!uri) return;
      for (const id of this.subscriptions.subscribers(uri)) {
        void this.sessions
          .get(id)
          ?.server.notification(n as ServerNotification)
          .catch(() => undefined);
      }
      return;
    }
    if (n.method === 'notifications/message') {
      const original = (n.params ?? {}) as JsonObject;
      const params = { ...original, logger: original.logger ?? backend };
      const level = original.level as LoggingLevel;
      // The newest in-flight request of each session at this backend.
      const related = new Map<string, string | number>();
      for (const caller of inFlight) if (caller.requestId !== undefined) related.set(caller.sessionId, caller.requestId);
      for (const s of this.sessions.values()) {
        if (!s.initialized || (s.logLevel && LOG_SEVERITY[level] < LOG_SEVERITY[s.logLevel])) continue;
        const relatedRequestId = related.get(s.id);
        const message = { method: n.method, params } as ServerNotification;
        void s.server.notification(message, relatedRequestId === undefined ? undefined : { relatedRequestId }).catch(() => undefined);
      }
      return;
    }
    this.log.debug({ backend, method: n.method }, 'backend notification not forwarded');
  }

  /**
   * A backend request no in-flight call explains (typically roots/list right
   * after connecting): asked of the most recently active session that can answer.
   */
  requestFromAnySession(request: JSONRPCRequest, signal: AbortSignal, onprogress?: ProgressHandler): Promise<JsonObject> {
    const capability = REQUIRED_CAPABILITY[request.method];
    const candidates = [...this.sessions.values()]
      .filter((s) => s.initialized && (!capability || s.server.getClientCapabilities()?.[capability]))
      .sort((a, b) => b.lastActivity - a.lastActivity);
    const target = candidates[0];
    if (!target) {
      if (request.method === 'roots/list') return Promise.resolve({ roots: [] });
      return Promise.reject(new McpError(RpcCode.InvalidRequest, `no client session can answer ${request.method}`));
    }
    return target.server.request({ method: request.method, params: request.params }, PASSTHROUGH, {
      signal,
      ...(onprogress ? { onprogress } : {}),
    });
  }
}
