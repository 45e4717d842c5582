/**
 * The two Redis connections of a replica (ioredis): one for commands, one
 * in subscriber mode for the cluster's pub/sub. Both reconnect by
 * themselves with capped exponential backoff. While Redis is unreachable,
 * commands fail at once (no offline queue: a request must get an answer,
 * not wait) and the store is `unavailable`; when both connections are ready
 * again it is `ok`. Whether it was ever reached tells a replica that starts
 * without Redis (not ready: it holds nothing) from one that lost it (it
 * serves what it holds). Redis errors are kept as one line for the logs and
 * never thrown at a client as they are.
 */
import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from '../observability/logging/logger.js';

export type StoreStatus = 'ok' | 'unavailable';

/** Waits between reconnection attempts: 100 ms doubling to 2 s, ±20 %. */
export function reconnectDelayMs(attempt: number): number {
  const base = Math.min(2000, 100 * 2 ** Math.min(attempt - 1, 5));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

const OPTIONS: RedisOptions = {
  lazyConnect: true,
  connectTimeout: 2000,
  // A command in flight when the connection drops fails rather than waiting for the next one.
  maxRetriesPerRequest: 1,
  retryStrategy: reconnectDelayMs,
};

export class RedisConnection {
  readonly commands: Redis;
  readonly subscriber: Redis;
  private current: StoreStatus = 'unavailable';
  private everReached = false;
  private connecting?: Promise<void>;
  private lastError = '';
  private readonly listeners = new Set<(status: StoreStatus, reason: string) => void>();

  constructor(
    url: string,
    /** Who this is among the replicas: the connections are named after it, for whoever reads CLIENT LIST. */
    replica: string,
    private readonly log: Logger,
  ) {
    const name = `mcp-gateway:${replica.replace(/[^\w.:-]/g, '_')}`;
    this.commands = new Redis(url, { ...OPTIONS, connectionName: `${name}:commands`, enableOfflineQueue: false });
    // The bus subscribes its channels again itself each time this connection is ready (./cluster-bus.ts).
    this.subscriber = new Redis(url, { ...OPTIONS, connectionName: `${name}:subscriber`, enableOfflineQueue: false, autoResubscribe: false });
    for (const client of [this.commands, this.subscriber]) {
      // Without a listener, an 'error' event would end the process.
      client.on('error', (err: Error) => {
        this.lastError = err.message;
      });
      client.on('ready', () => this.update());
      client.on('close', () => this.update());
      client.on('end', () => this.update());
    }
  }

  get status(): StoreStatus {
    return this.current;
  }

  /** Whether both connections have been ready at least once since this replica started. */
  get reached(): boolean {
    return this.everReached;
  }

  /** Why the store is unavailable, in one line (the last Redis error). */
  get reason(): string {
    return this.lastError || 'not connected';
  }

  onStatus(listener: (status: StoreStatus, reason: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Starts both connections and waits for the first attempt only: an
   * unreachable Redis leaves the store `unavailable` (the gateway still
   * starts, and is not ready) while the clients keep trying. Later calls
   * share that first attempt (the pin store connects before the sessions).
   */
  connect(): Promise<void> {
    return (this.connecting ??= this.firstAttempt());
  }

  private async firstAttempt(): Promise<void> {
    await Promise.all(
      [this.commands, this.subscriber].map((client) =>
        client.connect().catch((err: unknown) => {
          this.lastError = err instanceof Error ? err.message : String(err);
        }),
      ),
    );
    this.update();
  }

  async close(): Promise<void> {
    this.listeners.clear();
    await Promise.all([this.commands, this.subscriber].map((client) => client.quit().catch(() => client.disconnect())));
  }

  private update(): void {
    const next: StoreStatus = this.commands.status === 'ready' && this.subscriber.status === 'ready' ? 'ok' : 'unavailable';
    if (next === this.current) return;
    this.current = next;
    if (next === 'ok') {
      this.lastError = '';
      this.everReached = true;
    }
    this.log.info({ store: 'redis', status: next, ...(next === 'ok' ? {} : { reason: this.reason }) }, 'session store status');
    for (const listener of this.listeners) listener(next, this.reason);
  }
}
