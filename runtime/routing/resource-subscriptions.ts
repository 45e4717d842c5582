/**
 * Client subscriptions to resource updates. The backend is subscribed once
 * per URI, when the first client session subscribes, and unsubscribed when the
 * last one leaves; its `notifications/resources/updated` go to exactly the
 * sessions subscribed to that URI.
 */
import { ResourceNotFoundError } from '../../schemas/errors.js';
import type { Router } from './router.js';

export class ResourceSubscriptions {
  private readonly byUri = new Map<string, Set<string>>();
  private readonly bySession = new Map<string, Set<string>>();
  /** The backend connection each URI is subscribed at: a reconnected backend has forgotten it. */
  private readonly subscribedAt = new Map<string, unknown>();

  constructor(private readonly router: Router) {}

  async subscribe(sessionId: string, uri: string): Promise<void> {
    const route = this.router.resourceRoute(uri);
    if (!route) throw new ResourceNotFoundError(uri);
    let sessions = this.byUri.get(uri);
    if (!sessions) {
      const conn = this.router.targetOf(route.backend);
      await this.router.toBackend(route.backend, 'resources/subscribe', { uri });
      sessions = new Set();
      this.byUri.set(uri, sessions);
      this.subscribedAt.set(uri, conn);
    }
    sessions.add(sessionId);
    let uris = this.bySession.get(sessionId);
    if (!uris) this.bySession.set(sessionId, (uris = new Set()));
    uris.add(uri);
  }

  async unsubscribe(sessionId: string, uri: string): Promise<void> {
    this.bySession.get(sessionId)?.delete(uri);
    const sessions = this.byUri.get(uri);
    if (!sessions?.delete(sessionId) || sessions.size > 0) return;
    this.byUri.delete(uri);
    this.subscribedAt.delete(uri);
    const route = this.router.resourceRoute(uri);
    if (route) await this.router.toBackend(route.backend, 'resources/unsubscribe', { uri }).catch(() => undefined);
  }

  async dropSession(sessionId: string): Promise<void> {
    const uris = this.bySession.get(sessionId);
    if (!uris) return;
    this.bySession.delete(sessionId);
    await Promise.all([...uris].map((uri) => this.unsubscribe(sessionId, uri)));
  }

  /**
   * After the registry changed: every subscribed URI must be subscribed at the
   * connection that serves it now (a backend that reconnected, or a new owner
   * of the URI, knows nothing of the subscription).
   */
  async resync(): Promise<void> {
    await Promise.all(
      [...this.byUri.keys()].map(async (uri) => {
        const route = this.router.resourceRoute(uri);
        const conn = route ? this.router.targetOf(route.backend) : undefined;
        if (!route || !conn || this.subscribedAt.get(uri) === conn) return;
        this.subscribedAt.set(uri, conn);
        await this.router.toBackend(route.backend, 'resources/subscribe', { uri }).catch(() => this.subscribedAt.delete(uri));
      }),
    );
  }

  subscribers(uri: string): ReadonlySet<string> {
    return this.byUri.get(uri) ?? new Set();
  }
}
