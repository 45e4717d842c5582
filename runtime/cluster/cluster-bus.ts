/**
 * Pub/sub between replicas over the subscriber connection: one handler set
 * per channel, SUBSCRIBE on the first handler and UNSUBSCRIBE after the
 * last. Redis delivers what is published while a replica is subscribed, in
 * order; nothing is polled.
 */
import type { Redis } from 'ioredis';
import type { Logger } from '../observability/logging/logger.js';

type Handler = (message: string) => void;

export class ClusterBus {
  private readonly handlers = new Map<string, Set<Handler>>();
  /** SUBSCRIBE commands not yet confirmed: a second listener waits for the first one's. */
  private readonly pending = new Map<string, Promise<unknown>>();

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
  }

  /** Hears `channel` until the returned function is called; resolves once Redis confirmed the subscription. */
  async listen(channel: string, handler: Handler): Promise<() => void> {
    let set = this.handlers.get(channel);
    const first = !set;
    if (!set) this.handlers.set(channel, (set = new Set()));
    set.add(handler);
    const stop = () => {
      const current = this.handlers.get(channel);
      if (!current?.delete(handler) || current.size > 0) return;
      this.handlers.delete(channel);
      void this.subscriber.unsubscribe(channel).catch(() => undefined);
    };
    if (first) this.pending.set(channel, this.subscriber.subscribe(channel));
    const confirming = this.pending.get(channel);
    try {
      await confirming;
    } catch (err) {
      stop();
      throw err;
    } finally {
      if (this.pending.get(channel) === confirming) this.pending.delete(channel);
    }
    return stop;
  }

  /** Publishes without waiting for anyone: a replica that is not listening misses it. */
  publish(channel: string, message: string): void {
    this.publisher.publish(channel, message).catch((err: unknown) => {
      this.log.debug({ err: err instanceof Error ? err.message : String(err), channel }, 'cluster message not published');
    });
  }
}
