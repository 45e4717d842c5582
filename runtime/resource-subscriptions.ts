/**
 * Client subscriptions to resource updates. The backend is subscribed once
 * per URI, when the first client session subscribes, and unsubscribed when the
 * last one leaves; its `notifications/resources/updated` go to exactly the
 * sessions subscribed to that URI.
 */
import { ResourceNotFoundError } from '../schemas/errors.js';
import type { Router } from './router.js';

export class ResourceSubscriptions {
  private readonly byUri = new Map<string, Set<string>>();
  private readonly bySession = new Map<string, Set<string>>();

  constructor(private readonly router: Router) {}

  async subscribe(sessionId: string, uri: string): Promise<void> {
    const route = this.router.resourceRoute(uri);
    if (!route) throw new ResourceNotFoundError(uri);
    let sessions = this.byUri.get(uri);
    if (!sessions) {
      await this.router.toBackend(route.backend, 'resources/subscribe', { uri });
      sessions = new Set();
      this.byUri.set(uri, sessions);
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
    const route = this.router.resourceRoute(uri);
    if (route) await this.router.toBackend(route.backend, 'resources/unsubscribe', { uri }).catch(() => undefined);
  }

  async dropSession(sessionId: string): Promise<void> {
    const uris = this.bySession.get(sessionId);
    if (!uris) return;
    this.bySession.delete(sessionId);
    await Promise.all([...uris].map((uri) => this.unsubscribe(sessionId, uri)));
  }

  subscribers(uri: string): ReadonlySet<string> {
    return this.byUri.get(uri) ?? new Set();
  }
}
