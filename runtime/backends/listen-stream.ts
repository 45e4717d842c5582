/**
 * The `subscriptions/listen` stream of a 2026-07-28 backend connection.
 *
 * A modern backend sends no notification it was not asked for: list changes
 * and resource updates come only on a listen stream, whose filter names them
 * (the list kinds its capabilities announce, and the URIs clients subscribed
 * to). The filter of an open stream cannot change, so a new subscription
 * opens a stream with the new filter and then closes the old one (an update
 * may arrive on both meanwhile; never on neither). A stream that drops is
 * opened again after a growing delay, and the connection is told so it can
 * reload what it may have missed. Every change goes through one queue.
 */
import type { Client, McpSubscription, ServerCapabilities, SubscriptionFilter } from '@modelcontextprotocol/client';
import type { Logger } from '../observability/logging/logger.js';

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;

export class ListenStream {
  private current?: McpSubscription;
  private readonly uris = new Set<string>();
  private queue: Promise<void> = Promise.resolve();
  private retryMs = FIRST_RETRY_MS;
  private retryTimer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly client: Client,
    private readonly capabilities: ServerCapabilities,
    private readonly opts: {
      backend: string;
      log: Logger;
      /** How long the backend may take to acknowledge a stream. */
      ackTimeoutMs: number;
      /** Told after a dropped stream was opened again (changes may have been missed meanwhile). */
      onReopened: () => void;
    },
  ) {}

  /** Whether the backend takes resource URIs in a listen filter (`resources.subscribe`). */
  get subscribable(): boolean {
    return this.capabilities.resources?.subscribe === true;
  }

  /** Opens the stream for the list changes the backend announces (none: no stream). */
  start(): Promise<void> {
    return this.enqueue();
  }

  /** Adds a URI to the filter; resolves once a stream that carries it is acknowledged. */
  async subscribe(uri: string): Promise<void> {
    if (this.uris.has(uri)) return;
    this.uris.add(uri);
    try {
      await this.enqueue();
    } catch (err) {
      this.uris.delete(uri);
      throw err;
    }
  }

  async unsubscribe(uri: string): Promise<void> {
    if (!this.uris.delete(uri)) return;
    await this.enqueue().catch((err: Error) => this.opts.log.debug({ backend: this.opts.backend, err: err.message }, 'listen stream not narrowed'));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    const current = this.current;
    this.current = undefined;
    await current?.close().catch(() => undefined);
  }

  private filter(): SubscriptionFilter {
    const caps = this.capabilities;
    return {
      ...(caps.tools?.listChanged ? { toolsListChanged: true } : {}),
      ...(caps.prompts?.listChanged ? { promptsListChanged: true } : {}),
      ...(caps.resources?.listChanged ? { resourcesListChanged: true } : {}),
      ...(this.uris.size > 0 && this.subscribable ? { resourceSubscriptions: [...this.uris] } : {}),
    };
  }

  /** Runs a reopen after the ones already queued; a failure fails only its own caller. */
  private enqueue(): Promise<void> {
    const run = this.queue.then(() => this.reopen());
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async reopen(): Promise<void> {
    if (this.stopped) return;
    const previous = this.current;
    const filter = this.filter();
    if (Object.keys(filter).length === 0) {
      this.current = undefined;
      await previous?.close();
      return;
    }
    const next = await this.client.listen(filter, { timeout: this.opts.ackTimeoutMs });
    if (this.stopped) {
      await next.close();
      return;
    }
    this.current = next;
    this.watch(next);
    await previous?.close();
  }

  /** A stream that ends without our asking is opened again, later and later while that fails. */
  private watch(subscription: McpSubscription): void {
    void subscription.closed.then((cause) => {
      if (cause === 'local' || this.stopped || this.current !== subscription) return;
      this.current = undefined;
      this.opts.log.debug({ backend: this.opts.backend, cause }, 'listen stream ended; opening it again');
      this.retryLater();
    });
  }

  private retryLater(): void {
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
    this.retryTimer = setTimeout(() => {
      this.enqueue().then(
        () => {
          this.retryMs = FIRST_RETRY_MS;
          this.opts.onReopened();
        },
        (err: Error) => {
          this.opts.log.debug({ backend: this.opts.backend, err: err.message }, 'listen stream could not be opened again');
          if (!this.stopped && !this.current) this.retryLater();
        },
      );
    }, delay);
    this.retryTimer.unref();
  }
}
