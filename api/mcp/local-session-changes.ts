/**
 * Session changes with the memory store: nothing leaves this process, and a
 * resource subscription is made here at once (the backend is subscribed
 * with the URI's first subscriber).
 */
import type { ResourceSubscriptions } from '../../runtime/routing/resource-subscriptions.js';
import type { SessionChanges } from './session-changes.js';

export class LocalSessionChanges implements SessionChanges {
  constructor(private readonly subscriptions: ResourceSubscriptions) {}

  initialized(): void {}
  logLevel(): void {}
  snapshot(): void {}

  subscribe(session: { id: string }, uri: string): Promise<void> {
    return this.subscriptions.subscribe(session.id, uri);
  }

  unsubscribe(session: { id: string }, uri: string): Promise<void> {
    return this.subscriptions.unsubscribe(session.id, uri);
  }
}
