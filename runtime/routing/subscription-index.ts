/**
 * Which client session is subscribed to which resource URI: data only. The
 * fan-out reads it to deliver `notifications/resources/updated`; the
 * backend side (./resource-subscriptions.ts) keeps the backends subscribed
 * to exactly the URIs someone wants.
 */
export class SubscriptionIndex {
  private readonly byUri = new Map<string, Set<string>>();
  private readonly bySession = new Map<string, Set<string>>();

  /** Adds one; true when it is the URI's first subscriber. */
  add(sessionId: string, uri: string): boolean {
    let sessions = this.byUri.get(uri);
    const first = !sessions;
    if (!sessions) this.byUri.set(uri, (sessions = new Set()));
    sessions.add(sessionId);
    let uris = this.bySession.get(sessionId);
    if (!uris) this.bySession.set(sessionId, (uris = new Set()));
    uris.add(uri);
    return first;
  }

  /** Removes one; true when it was the URI's last subscriber. */
  remove(sessionId: string, uri: string): boolean {
    const uris = this.bySession.get(sessionId);
    uris?.delete(uri);
    if (uris?.size === 0) this.bySession.delete(sessionId);
    const sessions = this.byUri.get(uri);
    if (!sessions?.delete(sessionId) || sessions.size > 0) return false;
    this.byUri.delete(uri);
    return true;
  }

  subscribers(uri: string): ReadonlySet<string> {
    return this.byUri.get(uri) ?? EMPTY;
  }

  /** The URIs a session is subscribed to. */
  urisOf(sessionId: string): string[] {
    return [...(this.bySession.get(sessionId) ?? [])];
  }

  /** Every URI with at least one subscriber. */
  uris(): string[] {
    return [...this.byUri.keys()];
  }
}

const EMPTY: ReadonlySet<string> = new Set();
