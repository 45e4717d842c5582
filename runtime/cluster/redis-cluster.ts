/**
 * This replica's part of a cluster of gateways sharing sessions in Redis:
 * the connections, the session records, the event streams, the bus, the
 * definition pins, and who this replica is (its id for people, its tag for
 * the wire).
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from '../observability/logging/logger.js';
import { ClusterBus } from './cluster-bus.js';
import { RedisPendingSignIns } from './redis-pending-sign-ins.js';
import { decodeMessage, encodeMessage, type ClusterMessage } from './cluster-messages.js';
import { RedisConnection } from './redis-connection.js';
import { RedisEventStore } from './redis-event-store.js';
import { RedisKeys } from './redis-keys.js';
import { RedisPinStore } from './redis-pin-store.js';
import { RedisRateCounterStore } from './redis-rate-counter-store.js';
import { defineScripts } from './redis-scripts.js';
import { RedisSessionStore } from './redis-session-store.js';
import { RedisUserTokenVault } from './redis-user-token-vault.js';

export interface RedisClusterSettings {
  url: string;
  keyPrefix: string;
  /** `sessions.replay_s` in ms. */
  replayMs: number;
}

export class RedisCluster {
  /** Short and random per process: names this replica in request ids, stream ids and its channel. */
  readonly tag = randomBytes(4).toString('hex');
  readonly keys: RedisKeys;
  readonly connection: RedisConnection;
  readonly sessions: RedisSessionStore;
  readonly events: RedisEventStore;
  readonly bus: ClusterBus;
  readonly pins: RedisPinStore;

  constructor(
    settings: RedisClusterSettings,
    /** This replica's id (GET /status, the `replica` of the sessions it served). */
    readonly replicaId: string,
    private readonly log: Logger,
  ) {
    this.keys = new RedisKeys(settings.keyPrefix);
    this.connection = new RedisConnection(settings.url, replicaId, log);
    defineScripts(this.connection.commands);
    this.bus = new ClusterBus(this.connection.subscriber, this.connection.commands, log);
    this.sessions = new RedisSessionStore(this.connection.commands, this.keys, log);
    this.events = new RedisEventStore(this.connection.commands, this.bus, this.keys, settings.replayMs, log);
    this.pins = new RedisPinStore(this.connection, this.bus, this.keys, this.tag);
  }

  /** Connects (an unreachable Redis is retried in the background) and listens on the bus and this replica's channel. */
  async start(onMessage: (m: ClusterMessage) => void): Promise<void> {
    await this.connection.connect();
    const hear = (text: string) => {
      const m = decodeMessage(text);
      if (m && m.from !== this.tag) onMessage(m);
    };
    // Held across outages: subscribed now if Redis is there, else as soon as it is.
    for (const channel of [this.keys.bus, this.keys.replica(this.tag)]) this.bus.hold(channel, hear);
  }

  /** Counts of one rate_limiter entry, shared by the cluster (made only when the config has a rate_limiter). */
  rateCounters(limiter: string): RedisRateCounterStore {
    return new RedisRateCounterStore(this.connection.commands, this.keys, limiter, this.log);
  }

  /**
   * A random key every replica shares (the first to ask makes it): what
   * seals `requestState` when `server.input_rounds.state_key` is unset.
   */
  async sharedRequestStateKey(): Promise<Buffer> {
    const key = this.keys.requestStateKey;
    await this.connection.commands.set(key, randomBytes(32).toString('base64'), 'NX');
    const value = await this.connection.commands.get(key);
    if (!value) throw new Error('the shared requestState key vanished from Redis');
    return Buffer.from(value, 'base64');
  }

  /** The per-user OAuth tokens, sealed with `key` (runtime/auth/user-token-vault.ts). */
  userTokens(key: () => Buffer): RedisUserTokenVault {
    return new RedisUserTokenVault(this.connection.commands, this.keys, key, this.log);
  }

  /** Users' pending sign-ins (`server.public_url`), sealed with `key` like their tokens. */
  pendingSignIns(key: () => Buffer): RedisPendingSignIns {
    return new RedisPendingSignIns(this.connection.commands, this.bus, this.keys, this.tag, key, this.log);
  }

  /** Tells every replica. */
  broadcast(m: ClusterMessage): void {
    this.bus.publish(this.keys.bus, encodeMessage(m));
  }

  /** Tells the replica with this tag. */
  tell(tag: string, m: ClusterMessage): void {
    this.bus.publish(this.keys.replica(tag), encodeMessage(m));
  }

  close(): Promise<void> {
    return this.connection.close();
  }
}
