/**
 * Session records in Redis: one hash per session (each field of the
 * record JSON-encoded), expiring `session_ttl` after its last activity, and
 * one sorted set of the cluster's sessions scored by their expiry (for
 * `server.max_sessions` and `GET /sessions`). Every failure to reach Redis
 * becomes a SessionStoreUnavailableError (./store-call.ts).
 */
import type { Redis } from 'ioredis';
import { isSessionState, type SessionState } from '../../schemas/session-state.js';
import type { Logger } from '../observability/logging/logger.js';
import type { RedisKeys } from './redis-keys.js';
import { queueScript, runScript } from './redis-scripts.js';
import { storeCall } from './store-call.js';

export interface Activity {
  id: string;
  /** ms epoch. */
  lastActivity: number;
}

export class RedisSessionStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly log: Logger,
  ) {}

  /** Creates the record unless the cluster has `maxSessions` live ones already: false when refused. */
  create(state: SessionState, ttlMs: number, maxSessions: number): Promise<boolean> {
    return this.call(async () => {
      const expiresAt = state.last_activity + ttlMs;
      const made = await runScript(
        this.redis,
        'gwCreateSession',
        [this.keys.session(state.id), this.keys.sessions],
        [Date.now(), Math.ceil(expiresAt), maxSessions, state.id, ...encode(state)],
      );
      return made === 1;
    });
  }

  /** The session's record; undefined when Redis does not know it (expired, deleted) or holds something that is not a record. */
  load(id: string): Promise<SessionState | undefined> {
    return this.call(async () => {
      const hash = await this.redis.hgetall(this.keys.session(id));
      return this.decode(id, hash);
    });
  }

  /** Sets fields of a live session: false when it is gone. */
  update(id: string, fields: Partial<SessionState>): Promise<boolean> {
    return this.call(async () => (await runScript(this.redis, 'gwUpdateSession', [this.keys.session(id)], encode(fields))) === 1);
  }

  /** Adds or removes a subscription: the session's subscriptions afterwards, undefined when it is gone. */
  subscription(id: string, uri: string, add: boolean): Promise<string[] | undefined> {
    return this.call(async () => {
      const json = await runScript(this.redis, 'gwSubscription', [this.keys.session(id)], [uri, add ? '1' : '0']);
      return typeof json === 'string' ? (JSON.parse(json) as string[]) : undefined;
    });
  }

  /**
   * Writes activity back in one round trip, moving each session's activity
   * and expiry forward (never back: another replica may have seen it later).
   * The ids of sessions Redis no longer has.
   */
  touch(batch: Activity[], ttlMs: number, replica: string): Promise<string[]> {
    return this.call(async () => {
      if (batch.length === 0) return [];
      const pipeline = this.redis.pipeline();
      for (const a of batch) {
        queueScript(
          pipeline,
          'gwTouchSession',
          [this.keys.session(a.id), this.keys.sessions],
          [Math.floor(a.lastActivity), Math.ceil(a.lastActivity + ttlMs), JSON.stringify(replica), a.id],
        );
      }
      const results = (await pipeline.exec()) ?? [];
      const gone: string[] = [];
      results.forEach(([err, value], i) => {
        if (err) throw err;
        if (value === 0) gone.push(batch[i]!.id);
      });
      return gone;
    });
  }

  delete(id: string): Promise<void> {
    return this.call(async () => {
      await this.redis.multi().del(this.keys.session(id)).zrem(this.keys.sessions, id).exec();
    });
  }

  /** Live sessions of the cluster. */
  count(): Promise<number> {
    return this.call(() => this.redis.zcount(this.keys.sessions, `(${Date.now()}`, '+inf'));
  }

  /** Every live session's record. */
  list(): Promise<SessionState[]> {
    return this.call(async () => {
      const ids = await this.redis.zrangebyscore(this.keys.sessions, `(${Date.now()}`, '+inf');
      if (ids.length === 0) return [];
      const pipeline = this.redis.pipeline();
      for (const id of ids) pipeline.hgetall(this.keys.session(id));
      const results = (await pipeline.exec()) ?? [];
      const out: SessionState[] = [];
      results.forEach(([err, hash], i) => {
        if (err) throw err;
        const state = this.decode(ids[i]!, hash as Record<string, string>);
        if (state) out.push(state);
      });
      return out;
    });
  }

  private decode(id: string, hash: Record<string, string>): SessionState | undefined {
    if (Object.keys(hash).length === 0) return undefined;
    const record: Record<string, unknown> = {};
    try {
      for (const [field, value] of Object.entries(hash)) record[field] = JSON.parse(value) as unknown;
    } catch {
      record.id = undefined;
    }
    if (isSessionState(record) && record.id === id) return record;
    this.log.warn({ session: id }, 'the session store holds a record this gateway cannot read; treated as unknown');
    return undefined;
  }

  private call<T>(op: () => Promise<T>): Promise<T> {
    return storeCall(this.log, 'session record', op);
  }
}

/** A record (or part of one) as hash fields: each value JSON. */
function encode(fields: Partial<SessionState>): string[] {
  const out: string[] = [];
  for (const [field, value] of Object.entries(fields)) if (value !== undefined) out.push(field, JSON.stringify(value));
  return out;
}
