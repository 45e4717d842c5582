/**
 * Pub/sub between replicas over the subscriber connection: one handler set
 * per channel, SUBSCRIBE on the first handler and UNSUBSCRIBE after the
 * last. Redis delivers what is published while a replica is subscribed, in
 * order; nothing is polled.
 *
 * What is published while the subscriber is disconnected is lost. So every
 * channel with a handler is subscribed again each time the connection is
 * ready (ioredis' own resubscription is off: it skips a connection that was
 * never ready, and cannot say when it is done), and then `onResubscribed`
 * listeners re-read what the gap may have hidden from them (a stream's
 * events, the pins, the records of cached sessions).
 */
import type { Redis } from 'ioredis';
import type { Logger } from '../observability/logging/logger.js';

type Handler = (message: string) => void;

export class ClusterBus {
  private readonly handlers = new Map<string, Set<Handler>>();
  /** Channels Redis confirmed on the current connection. */
  private readonly confirmed = new Set<string>();
  /** SUBSCRIBE commands not yet confirmed: a second listener waits for the first one's. */
  private readonly pending = new Map<string, Promise<unknown>>();
  /** Who waits for a channel to be confirmed, now or once the connection is back. */
  private readonly waiting = new Map<string, Set<() => void>>();
  private readonly resubscribedListeners = new Set<() => void>();
  private readonly lostListeners = new Set<() => void>();

  constructor(
    private readonly subscriber: Redis,
    private readonly publisher: Redis,
    private readonly log: Logger,
  ) {
    subscriber.on('message', (channel: string, message: string) => {
      for (const handler of this.handlers.get(channel) ?? []) {
        try {
          handler(message);
        } catch (err) {
          this.log.warn({ err, channel }, 'a cluster message handler failed');
        }
      }
    });
    subscriber.on('close', () => {
      this.confirmed.clear();
      notify(this.lostListeners, this.log);
    });
    subscriber.on('ready', () => void this.subscribeAll());
  }

  /**
   * Hears `channel` until the returned function is called; resolves once
   * Redis confirmed the subscription, rejects (and hears nothing) when it
   * cannot be made now.
   */
  async listen(channel: string, handler: Handler): Promise<() => void> {
    const stop = this.hold(channel, handler);
    try {
      await this.subscribe(channel);
    } catch (err) {
      stop();
      throw err;
    }
    return stop;
  }

  /**
   * Hears `channel` until the returned function is called, across outages:
   * subscribed now when the connection is ready, and again each time it is
   * ready after a disconnection.
   */
  hold(channel: string, handler: Handler): () => void {
    let set = this.handlers.get(channel);
    const first = !set;
    if (!set) this.handlers.set(channel, (set = new Set()));
    set.add(handler);
    if (first && this.subscriber.status === 'ready') this.subscribe(channel).catch(() => undefined);
    return () => {
      const current = this.handlers.get(channel);
      if (!current?.delete(handler) || current.size > 0) return;
      this.handlers.delete(channel);
      this.confirmed.delete(channel);
      this.subscriber.unsubscribe(channel).catch(() => undefined);
    };
  }

  /** Resolves once a held channel is subscribed: at once, or when the connection is back. */
  whenSubscribed(channel: string): Promise<void> {
    if (this.confirmed.has(channel)) return Promise.resolve();
    return new Promise((resolve) => {
      let set = this.waiting.get(channel);
      if (!set) this.waiting.set(channel, (set = new Set()));
      set.add(resolve);
    });
  }

  /** Told when the subscriber connection drops: from now on nothing published is heard, until `onResubscribed`. */
  onLost(listener: () => void): () => void {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
  }

  /** Told after every channel was subscribed again on a new connection: what was published meanwhile is lost. */
  onResubscribed(listener: () => void): () => void {
    this.resubscribedListeners.add(listener);
    return () => this.resubscribedListeners.delete(listener);
  }

  /** Publishes without waiting for anyone: a replica that is not listening misses it. */
  publish(channel: string, message: string): void {
    this.publisher.publish(channel, message).catch((err: unknown) => {
      this.log.debug({ err: err instanceof Error ? err.message : String(err), channel }, 'cluster message not published');
    });
  }

  private subscribe(channel: string): Promise<unknown> {
    if (this.confirmed.has(channel)) return Promise.resolve();
    const inFlight = this.pending.get(channel);
    if (inFlight) return inFlight;
    const confirming = this.subscriber
      .subscribe(channel)
      .then(() => this.confirm([channel]))
      .finally(() => this.pending.delete(channel));
    this.pending.set(channel, confirming);
    return confirming;
  }

  /** A (new) connection is ready: every channel with a handler is subscribed, then the listeners catch up. */
  private async subscribeAll(): Promise<void> {
    const channels = [...this.handlers.keys()];
    try {
      if (channels.length > 0) await this.subscriber.subscribe(...channels);
    } catch (err) {
      // Lost again before Redis confirmed: the next 'ready' tries again.
      this.log.debug({ err: err instanceof Error ? err.message : String(err) }, 'cluster channels not subscribed again');
      return;
    }
    // A handler that went meanwhile leaves its channel subscribed for nothing.
    const gone = channels.filter((c) => !this.handlers.has(c));
    if (gone.length > 0) this.subscriber.unsubscribe(...gone).catch(() => undefined);
    this.confirm(channels.filter((c) => this.handlers.has(c)));
    notify(this.resubscribedListeners, this.log);
  }

  private confirm(channels: string[]): void {
    for (const channel of channels) {
      if (!this.handlers.has(channel)) continue;
      this.confirmed.add(channel);
      const waiters = this.waiting.get(channel);
      this.waiting.delete(channel);
      for (const resolve of waiters ?? []) resolve();
    }
  }
}

function notify(listeners: ReadonlySet<() => void>, log: Logger): void {
  for (const listener of listeners) {
    try {
      listener();
    } catch (err) {
      log.warn({ err }, 'a cluster connection listener failed');
    }
  }
}
