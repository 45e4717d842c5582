/**
 * The session table of `sessions.store: redis`: sessions live in Redis,
 * shared by every replica; this replica caches the ones it serves. A request
 * on a cached session does no Redis round trip: activity is written back in
 * batches, at least every quarter of `session_ttl`, and Redis expires a
 * session `session_ttl` after the last activity any replica saw. A session
 * this replica does not know is loaded and taken up (`resolve`); one Redis
 * does not know is unknown. The limit counts the cluster's sessions; DELETE
 * ends a session for every replica.
 *
 * Legacy `/sse` sessions are bound to their one connection: they stay in
 * this replica (counted and listed here, not shared).
 */
import type { LoggingLevel } from '@modelcontextprotocol/server';
import type { RedisCluster } from '../../runtime/cluster/redis-cluster.js';
import type { ClusterMessage } from '../../runtime/cluster/cluster-messages.js';
import type { Activity } from '../../runtime/cluster/redis-session-store.js';
import { STORE_RETRY_AFTER_S } from '../../runtime/cluster/store-call.js';
import type { Logger } from '../../runtime/observability/logging/logger.js';
import type { SessionRecord } from '../../schemas/api.js';
import { ResourceNotFoundError, SessionStoreUnavailableError, TooManySessionsError } from '../../schemas/errors.js';
import type { SessionState } from '../../schemas/session-state.js';
import type { CallerIdentity } from '../../runtime/access/identity.js';
import type { ClientSession } from './client-session.js';
import type { RedisClusterLink } from './redis-cluster-link.js';
import { SESSION_RETRY_AFTER_S, type SessionLimits, type SessionTable, type StoreState } from './session-table.js';
import type { SessionChanges } from './session-changes.js';
import { NodeStreamableHttpTransport } from './node-streamable-http-transport.js';
import { EndedListeners } from './ended-listeners.js';

/** Activity is written back at least this often (and at least every quarter of the TTL). */
const MAX_FLUSH_EVERY_MS = 5_000;

export class RedisSessionTable implements SessionTable, SessionChanges {
  readonly shared: SessionChanges = this;
  private readonly cached = new Map<string, ClientSession>();
  private readonly adopting = new Map<string, Promise<ClientSession | undefined>>();
  /** The last activity written to Redis, per cached session. */
  private readonly flushed = new WeakMap<ClientSession, number>();
  /** The last capability snapshot written, per cached session. */
  private readonly snapshots = new WeakMap<ClientSession, string>();
  private readonly ended = new EndedListeners();
  private readonly subscriptionListeners = new Set<(id: string, uris: string[]) => void>();
  /** How many subscription changes this replica applied per session it holds (a record read before one is stale). */
  private readonly subscriptionsTold = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private ticking = false;
  private ttlSeconds: number;
  private maxSessions: number;

  constructor(
    limits: SessionLimits,
    private readonly cluster: RedisCluster,
    private readonly link: RedisClusterLink,
    private readonly log: Logger,
  ) {
    this.ttlSeconds = limits.ttlSeconds;
    this.maxSessions = limits.maxSessions;
    link.onHolder((id, holds) => void this.holderChanged(id, holds));
    // What the other replicas said while this one's subscriber was away is lost: the records say what changed.
    cluster.bus.onResubscribed(() => void this.resync());
  }

  private get ttlMs(): number {
    return this.ttlSeconds * 1000;
  }

  /** What the other replicas say (runtime/cluster/cluster-messages.ts). */
  hear(m: ClusterMessage): void {
    switch (m.t) {
      case 'ended':
        void this.close(m.s);
        return;
      case 'initialized': {
        const session = this.cached.get(m.s);
        if (session) session.initialized = true;
        return;
      }
      case 'cancel':
      case 'response':
        this.transportOf(m.s)?.receive(m.m);
        return;
      case 'follower':
        this.transportOf(m.s)?.followerChanged(m.stream, m.delta);
        return;
      case 'log-level': {
        const session = this.cached.get(m.s);
        if (session) session.logLevel = m.level;
        return;
      }
      case 'subscriptions':
        if (this.link.holds(m.s)) this.tellSubscriptions(m.s, m.uris);
        return;
      case 'holder':
        this.link.superseded(m.s);
        return;
    }
  }

  /** Told which resource URIs this replica must deliver updates of for a session (none: it no longer does). */
  onSubscriptions(listener: (id: string, uris: string[]) => void): void {
    this.subscriptionListeners.add(listener);
  }

  setLimits(limits: SessionLimits): void {
    const restart = this.timer !== undefined && limits.ttlSeconds !== this.ttlSeconds;
    this.ttlSeconds = limits.ttlSeconds;
    this.maxSessions = limits.maxSessions;
    if (restart) this.startReaper();
  }

  /** Fast refusal while Redis is unreachable (the limit itself is checked when the record is made). */
  admit(): void {
    if (this.cluster.connection.status !== 'ok') throw new SessionStoreUnavailableError(STORE_RETRY_AFTER_S);
  }

  async add(session: ClientSession): Promise<void> {
    if (session.transportType === 'streamable-http') {
      const made = await this.cluster.sessions.create(this.stateOf(session), this.ttlMs, this.maxSessions);
      if (!made) throw new TooManySessionsError(this.maxSessions, SESSION_RETRY_AFTER_S);
    }
    this.cached.set(session.id, session);
    this.flushed.set(session, session.lastActivity);
  }

  get(id: string): ClientSession | undefined {
    return this.cached.get(id);
  }

  resolve(id: string, adopt: (state: SessionState) => Promise<ClientSession>): Promise<ClientSession | undefined> {
    const cached = this.cached.get(id);
    if (cached) return Promise.resolve(cached);
    let pending = this.adopting.get(id);
    if (!pending) {
      pending = (async () => {
        const state = await this.cluster.sessions.load(id);
        if (!state) return undefined;
        const session = await adopt(state);
        this.cached.set(id, session);
        this.flushed.set(session, state.last_activity);
        this.snapshots.set(session, JSON.stringify(state.capability_snapshot));
        return session;
      })().finally(() => this.adopting.delete(id));
      this.adopting.set(id, pending);
    }
    return pending;
  }

  all(): Iterable<ClientSession> {
    return this.cached.values();
  }

  *listening(): Iterable<ClientSession> {
    for (const session of this.cached.values()) if (this.link.holds(session.id)) yield session;
  }

  get size(): number {
    return this.cached.size;
  }

  onEnded(listener: (id: string) => Promise<void> | void): () => void {
    return this.ended.add(listener);
  }

  async forget(id: string): Promise<void> {
    if (!this.cached.delete(id)) return;
    await this.ended.notify(id);
  }

  async end(id: string): Promise<void> {
    await this.cluster.sessions.delete(id);
    this.cluster.broadcast({ t: 'ended', s: id, from: this.cluster.tag });
  }

  async close(id: string): Promise<void> {
    const session = this.cached.get(id);
    if (!session) return;
    await this.forget(id);
    await session.close().catch(() => undefined);
  }

  endStreams(retryMs: number): void {
    for (const session of this.cached.values()) if (session.transport instanceof NodeStreamableHttpTransport) session.transport.endStandalone(retryMs);
  }

  /** Writes the activity back one last time, then lets go of every session here; Redis keeps them for the others. */
  async closeAll(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush([...this.cached.values()]).catch(() => undefined);
    await Promise.all([...this.cached.keys()].map((id) => this.close(id)));
  }

  startReaper(): void {
    clearInterval(this.timer);
    const everyMs = Math.max(50, Math.min(MAX_FLUSH_EVERY_MS, this.ttlMs / 4));
    this.timer = setInterval(() => void this.tick(), everyMs);
    this.timer.unref();
  }

  async records(): Promise<SessionRecord[]> {
    const now = Date.now();
    const ttl = Math.ceil(this.ttlSeconds);
    const shared = (await this.cluster.sessions.list()).map((state) => {
      const local = this.cached.get(state.id);
      const last = Math.max(state.last_activity, local?.lastActivity ?? 0);
      return {
        id: state.id,
        transport_type: state.transport_type,
        client_name: typeof state.initialize.clientInfo.name === 'string' ? state.initialize.clientInfo.name : null,
        client_version: typeof state.initialize.clientInfo.version === 'string' ? state.initialize.clientInfo.version : null,
        protocol_version: local?.protocolVersion ?? state.initialize.protocolVersion ?? null,
        tool_count: state.capability_snapshot.tools,
        capability_snapshot: { ...state.capability_snapshot },
        age_seconds: (now - state.created_at) / 1000,
        idle_seconds: (now - last) / 1000,
        ttl,
        expired: (local?.activeRequests ?? 0) === 0 && now - last > this.ttlMs,
        // Activity written back later than the record was read: this replica served it last.
        replica: local && local.lastActivity > state.last_activity ? this.cluster.replicaId : state.replica,
        user_id: local?.identity.userId ?? state.owner?.user_id ?? null,
        roles: [...(local?.identity.roles ?? state.owner?.roles ?? [])],
        waiting_input: local?.waitingInput ?? 0,
      };
    });
    const sse = [...this.cached.values()]
      .filter((s) => s.transportType === 'sse')
      .map((s) => ({
        id: s.id,
        transport_type: s.transportType,
        ...s.describedClient(),
        tool_count: s.capabilitySnapshot.tools,
        capability_snapshot: { ...s.capabilitySnapshot },
        age_seconds: (now - s.createdAt) / 1000,
        idle_seconds: (now - s.lastActivity) / 1000,
        ttl,
        expired: s.activeRequests === 0 && now - s.lastActivity > this.ttlMs,
        replica: this.cluster.replicaId,
        user_id: s.identity.userId ?? null,
        roles: [...s.identity.roles],
        waiting_input: s.waitingInput,
      }));
    return [...shared, ...sse];
  }

  storeState(): StoreState {
    const { status, reached, reason } = this.cluster.connection;
    if (status === 'ok') return { type: 'redis', status };
    return { type: 'redis', status: reached ? 'degraded' : 'unavailable', reason };
  }

  // --- what the client changed, for the other replicas ---

  initialized(session: ClientSession): void {
    this.snapshots.set(session, JSON.stringify(session.capabilitySnapshot));
    this.write(session, { initialized: true, capability_snapshot: { ...session.capabilitySnapshot } });
    this.cluster.broadcast({ t: 'initialized', s: session.id, from: this.cluster.tag });
  }

  logLevel(session: ClientSession, level: LoggingLevel): void {
    this.write(session, { log_level: level });
    this.cluster.broadcast({ t: 'log-level', s: session.id, level, from: this.cluster.tag });
  }

  snapshot(session: ClientSession): void {
    const json = JSON.stringify(session.capabilitySnapshot);
    if (this.snapshots.get(session) === json) return;
    this.snapshots.set(session, json);
    this.write(session, { capability_snapshot: { ...session.capabilitySnapshot } });
  }

  subscribe(session: ClientSession, uri: string): Promise<void> {
    return this.changeSubscription(session, uri, true);
  }

  unsubscribe(session: ClientSession, uri: string): Promise<void> {
    return this.changeSubscription(session, uri, false);
  }

  private async changeSubscription(session: ClientSession, uri: string, add: boolean): Promise<void> {
    const uris = await this.cluster.sessions.subscription(session.id, uri, add);
    if (!uris) throw new ResourceNotFoundError(uri);
    this.cluster.broadcast({ t: 'subscriptions', s: session.id, uris, from: this.cluster.tag });
    if (this.link.holds(session.id)) this.tellSubscriptions(session.id, uris);
  }

  private write(session: ClientSession, fields: Partial<SessionState>): void {
    if (session.transportType !== 'streamable-http') return;
    this.cluster.sessions.update(session.id, fields).catch((err: unknown) => this.log.warn({ err, session: session.id }, 'session change not stored'));
  }

  // --- holding a session's GET stream ---

  /** This replica took (or let go of) a session's GET stream: the session's resource updates follow. */
  private async holderChanged(id: string, holds: boolean): Promise<void> {
    if (!holds) return this.tellSubscriptions(id, []);
    const told = this.subscriptionsTold.get(id) ?? 0;
    const state = await this.cluster.sessions.load(id).catch(() => undefined);
    // A change heard while the record was read is newer than the record read.
    if (state && this.link.holds(id) && (this.subscriptionsTold.get(id) ?? 0) === told) this.tellSubscriptions(id, state.subscriptions);
  }

  private tellSubscriptions(id: string, uris: string[]): void {
    if (uris.length === 0) this.subscriptionsTold.delete(id);
    else this.subscriptionsTold.set(id, (this.subscriptionsTold.get(id) ?? 0) + 1);
    for (const listener of this.subscriptionListeners) listener(id, uris);
  }

  /**
   * After a gap in the bus: each cached session's record is read again, so
   * a session ended elsewhere is let go of, and a level, an initialization
   * or subscriptions changed elsewhere apply here.
   */
  private async resync(): Promise<void> {
    const sessions = [...this.cached.values()].filter((s) => s.transportType === 'streamable-http');
    await Promise.all(
      sessions.map(async (session) => {
        const state = await this.cluster.sessions.load(session.id).catch(() => null);
        if (state === null || this.cached.get(session.id) !== session) return;
        if (state === undefined) return this.close(session.id);
        if (state.initialized) session.initialized = true;
        if (state.log_level !== undefined) session.logLevel = state.log_level;
        if (this.link.holds(session.id)) this.tellSubscriptions(session.id, state.subscriptions);
      }),
    );
  }

  // --- activity and expiry ---

  /**
   * Writes back the activity of the sessions used since the last tick (a
   * call in flight counts as activity) and lets go of the local copy of a
   * session idle here past the TTL (Redis expires it by itself, unless
   * another replica keeps it alive). A session Redis no longer has ended.
   */
  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      const now = Date.now();
      const used: ClientSession[] = [];
      const idle: ClientSession[] = [];
      for (const s of this.cached.values()) {
        if (s.activeRequests > 0) s.touch();
        if (s.lastActivity > (this.flushed.get(s) ?? 0)) used.push(s);
        else if (now - s.lastActivity > this.ttlMs) idle.push(s);
      }
      await this.flush(used);
      const localIdle = idle.filter((s) => s.transportType === 'sse');
      for (const s of localIdle) this.log.info({ session: s.id }, 'closing idle client session');
      await Promise.all(localIdle.map((s) => this.close(s.id)));
      // A shared session idle here: still alive elsewhere (its record was kept alive), or gone.
      const shared = idle.filter((s) => s.transportType === 'streamable-http');
      const gone = new Set(await this.cluster.sessions.touch(shared.map(activityOf), this.ttlMs, this.cluster.replicaId));
      for (const s of shared) {
        if (gone.has(s.id)) this.log.info({ session: s.id }, 'client session expired');
        if (gone.has(s.id) || !this.link.holds(s.id)) await this.close(s.id);
      }
    } catch {
      // Redis is unreachable: the activity stays unwritten and goes with the next tick.
    } finally {
      this.ticking = false;
    }
  }

  private async flush(sessions: ClientSession[]): Promise<void> {
    const shared = sessions.filter((s) => s.transportType === 'streamable-http');
    if (shared.length === 0) return;
    const batch = shared.map(activityOf);
    const gone = await this.cluster.sessions.touch(batch, this.ttlMs, this.cluster.replicaId);
    batch.forEach((a, i) => this.flushed.set(shared[i]!, a.lastActivity));
    for (const id of gone) await this.close(id);
  }

  private transportOf(id: string): NodeStreamableHttpTransport | undefined {
    const transport = this.cached.get(id)?.transport;
    return transport instanceof NodeStreamableHttpTransport ? transport : undefined;
  }

  private stateOf(session: ClientSession): SessionState {
    return {
      id: session.id,
      transport_type: 'streamable-http',
      client_ip: session.clientIp,
      created_at: session.createdAt,
      last_activity: session.lastActivity,
      replica: this.cluster.replicaId,
      initialize: session.initializeParams ?? { protocolVersion: '', capabilities: {}, clientInfo: {} },
      initialized: session.initialized,
      subscriptions: [],
      capability_snapshot: { ...session.capabilitySnapshot },
      ...(session.logLevel ? { log_level: session.logLevel } : {}),
      owner: ownerOf(session.identity),
    };
  }
}

function ownerOf(identity: CallerIdentity): NonNullable<SessionState['owner']> {
  return { type: identity.type, ...(identity.userId !== undefined ? { user_id: identity.userId } : {}), roles: [...identity.roles] };
}

function activityOf(s: ClientSession): Activity {
  return { id: s.id, lastActivity: s.lastActivity };
}
