/**
 * The clients that called without a session (2026-07-28), as this replica
 * saw them: one entry per program, version and user, with when it was last
 * seen and how many requests it made (GET /manage/v1/clients). Bounded:
 * the least recently seen entries go first.
 */
import { LRUCache } from 'lru-cache';
import type { CallerContext } from '../../../runtime/routing/caller.js';

export interface ClientRecord {
  name: string;
  version: string | null;
  protocol_version: string;
  user_id: string | null;
  replica: string;
  first_seen: string;
  last_seen: string;
  requests: number;
}

interface Seen {
  name: string;
  version?: string;
  protocolVersion: string;
  userId?: string;
  firstSeen: number;
  lastSeen: number;
  requests: number;
}

const MAX_CLIENTS = 1000;

export class RecentClients {
  private readonly seen = new LRUCache<string, Seen>({ max: MAX_CLIENTS });

  constructor(private readonly replica: string) {}

  /** One request of a stateless caller. */
  record(caller: Pick<CallerContext, 'client' | 'userId' | 'protocolVersion'>, now = Date.now()): void {
    const name = caller.client?.name ?? '(unnamed)';
    const key = `${name}\u0000${caller.client?.version ?? ''}\u0000${caller.userId ?? ''}`;
    const entry = this.seen.get(key);
    if (entry) {
      entry.lastSeen = now;
      entry.requests++;
      return;
    }
    this.seen.set(key, {
      name,
      version: caller.client?.version,
      protocolVersion: caller.protocolVersion ?? '',
      userId: caller.userId,
      firstSeen: now,
      lastSeen: now,
      requests: 1,
    });
  }

  /** Most recently seen first. */
  records(): ClientRecord[] {
    return [...this.seen.values()].map((s) => ({
      name: s.name,
      version: s.version ?? null,
      protocol_version: s.protocolVersion,
      user_id: s.userId ?? null,
      replica: this.replica,
      first_seen: new Date(s.firstSeen).toISOString(),
      last_seen: new Date(s.lastSeen).toISOString(),
      requests: s.requests,
    }));
  }
}
