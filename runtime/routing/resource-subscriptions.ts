/**
 * The backend side of client subscriptions to resource updates. A backend is
 * subscribed once per URI, when the first client session subscribes, and
 * unsubscribed when the last one leaves; who is subscribed is kept in the
 * SubscriptionIndex, which the fan-out reads to deliver the updates.
 */
import { BackendUnavailableError, ResourceNotFoundError } from '../../schemas/errors.js';
import type { ServingTarget } from '../backends/serving-backends.js';
import type { Router } from './router.js';
import type { SubscriptionIndex } from './subscription-index.js';

/** What the subscriptions need of the router: where a URI lives, and what serves its owner. */
export type SubscriptionChannel = Pick<Router, 'resourceRoute' | 'targetOf'>;

export class ResourceSubscriptions {
  /** The backend connection each URI is subscribed at: a reconnected backend has forgotten it. */
  private readonly subscribedAt = new Map<string, unknown>();
  /** Backend subscriptions being made, per URI: the subscribers that come meanwhile wait for them. */
  private readonly pending = new Map<string, Promise<void>>();

  constructor(
    private readonly router: SubscriptionChannel,
    private readonly index: SubscriptionIndex,
  ) {}

  async subscribe(sessionId: string, uri: string): Promise<void> {
    const route = this.router.resourceRoute(uri);
    if (!route) throw new ResourceNotFoundError(uri);
    const first = this.index.subscribers(uri).size === 0;
    // Recorded before the backend is asked: an update it sends right behind its answer (in the same
    // chunk, handled before this continuation runs) must already find its subscriber.
    this.index.add(sessionId, uri);
    // A later subscriber waits for the first one's backend subscription and fails with it.
    const subscribing = first ? this.subscribeBackend(uri, route.backend) : this.pending.get(uri);
    if (!subscribing) return;
    try {
      await subscribing;
    } catch (err) {
      this.index.remove(sessionId, uri);
      throw err;
    }
  }

  private subscribeBackend(uri: string, backend: string): Promise<void> {
    const conn = this.router.targetOf(backend);
    const subscribing = (conn ? conn.subscribeResource(uri) : Promise.reject(new BackendUnavailableError(backend, 'not connected')))
      .then(() => void this.subscribedAt.set(uri, conn))
      .finally(() => this.pending.delete(uri));
    this.pending.set(uri, subscribing);
    return subscribing;
  }

  async unsubscribe(sessionId: string, uri: string): Promise<void> {
    if (!this.index.remove(sessionId, uri)) return;
    this.subscribedAt.delete(uri);
    const route = this.router.resourceRoute(uri);
    const conn = route && this.router.targetOf(route.backend);
    await conn?.unsubscribeResource(uri).catch(() => undefined);
  }

  /**
   * Makes a session's subscriptions here exactly `uris`: a shared session
   * whose GET stream this replica took (its subscriptions, from the store)
   * or let go of (none). A URI no backend serves now is skipped.
   */
  async sync(sessionId: string, uris: readonly string[]): Promise<void> {
    const want = new Set(uris);
    const have = this.index.urisOf(sessionId);
    await Promise.all([
      ...have.filter((uri) => !want.has(uri)).map((uri) => this.unsubscribe(sessionId, uri)),
      ...[...want].filter((uri) => !have.includes(uri)).map((uri) => this.subscribe(sessionId, uri).catch(() => undefined)),
    ]);
  }

  /** A session ended: its subscriptions end with it. */
  async dropSession(sessionId: string): Promise<void> {
    await Promise.all(this.index.urisOf(sessionId).map((uri) => this.unsubscribe(sessionId, uri)));
  }

  /**
   * After the route table changed: every subscribed URI must be subscribed at
   * the connection that serves it now (a backend that reconnected, or a new
   * owner of the URI, knows nothing of the subscription).
   */
  async resync(): Promise<void> {
    await Promise.all(
      this.index.uris().map(async (uri) => {
        const route = this.router.resourceRoute(uri);
        const conn: ServingTarget | undefined = route ? this.router.targetOf(route.backend) : undefined;
        if (!conn || this.subscribedAt.get(uri) === conn) return;
        this.subscribedAt.set(uri, conn);
        await conn.subscribeResource(uri).catch(() => this.subscribedAt.delete(uri));
      }),
    );
  }
}
