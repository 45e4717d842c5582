/**
 * The session table in this process's memory. It reaps sessions idle past
 * the TTL (the SDK never does) and keeps the session limit.
 */
import type { Logger } from '../../runtime/observability/logging/logger.js';
import type { SessionRecord } from '../../schemas/api.js';
import { TooManySessionsError } from '../../schemas/errors.js';
import type { ClientSession } from './client-session.js';
import { NodeStreamableHttpTransport } from './node-streamable-http-transport.js';
import { SESSION_RETRY_AFTER_S, type SessionLimits, type SessionTable, type StoreState } from './session-table.js';
import { EndedListeners } from './ended-listeners.js';

export class MemorySessionTable implements SessionTable {
  private readonly sessions = new Map<string, ClientSession>();
  private readonly ended = new EndedListeners();
  private reaper?: NodeJS.Timeout;
  private ttlSeconds: number;
  private maxSessions: number;

  constructor(
    limits: SessionLimits,
    /** This process's replica id: the `replica` of every session it lists. */
    private readonly replicaId: string,
    private readonly log: Logger,
  ) {
    this.ttlSeconds = limits.ttlSeconds;
    this.maxSessions = limits.maxSessions;
  }

  /** The reaper follows a TTL change; a lower session limit only refuses new sessions. */
  setLimits(limits: SessionLimits): void {
    const restart = this.reaper !== undefined && limits.ttlSeconds !== this.ttlSeconds;
    this.ttlSeconds = limits.ttlSeconds;
    this.maxSessions = limits.maxSessions;
    if (restart) this.startReaper();
  }

  /** Sessions already open are never disturbed by the limit. */
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

  all(): Iterable<ClientSession> {
    return this.sessions.values();
  }

  listening(): Iterable<ClientSession> {
    return this.sessions.values();
  }

  /** Every session is here: one this table does not have does not exist. */
  async resolve(): Promise<undefined> {
    return undefined;
  }

  /** The transport closes after a DELETE, and forget() follows: nothing else holds the session. */
  async end(): Promise<void> {}

  storeState(): StoreState {
    return { type: 'memory', status: 'ok' };
  }

  get size(): number {
    return this.sessions.size;
  }

  onEnded(listener: (id: string) => Promise<void> | void): () => void {
    return this.ended.add(listener);
  }

  async forget(id: string): Promise<void> {
    if (!this.sessions.delete(id)) return;
    await this.ended.notify(id);
  }

  async close(id: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    await this.forget(id);
    await session.close().catch(() => undefined);
  }

  endStreams(retryMs: number): void {
    for (const session of this.sessions.values()) if (session.transport instanceof NodeStreamableHttpTransport) session.transport.endStandalone(retryMs);
  }

  async closeAll(): Promise<void> {
    clearInterval(this.reaper);
    this.reaper = undefined;
    await Promise.all([...this.sessions.keys()].map((id) => this.close(id)));
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

  async records(): Promise<SessionRecord[]> {
    const now = Date.now();
    return [...this.sessions.values()].map((s) => ({
      id: s.id,
      transport_type: s.transportType,
      ...s.describedClient(),
      tool_count: s.capabilitySnapshot.tools,
      capability_snapshot: { ...s.capabilitySnapshot },
      age_seconds: (now - s.createdAt) / 1000,
      idle_seconds: (now - s.lastActivity) / 1000,
      // Spec 2.4 has an integer; a fractional session_ttl (tests use them) is reported rounded up.
      ttl: Math.ceil(this.ttlSeconds),
      expired: this.isExpired(s, now),
      replica: this.replicaId,
      user_id: s.identity.userId ?? null,
      roles: [...s.identity.roles],
      waiting_input: s.waitingInput,
    }));
  }
}
