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
  waiting_input: number;
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
  /** The entry of the last request's client, with what names it. */
  private last?: { key: string; entry: Seen; name: string; version?: string; userId?: string };

  constructor(
    private readonly replica: string,
    /** Who made the calls waiting for their client's input here now (runtime/rounds/stateless-rounds.ts). */
    private readonly waiting: () => readonly CallerContext[] = () => [],
  ) {}

  /** One request of a stateless caller. */
  record(caller: Pick<CallerContext, 'client' | 'userId' | 'protocolVersion'>, now = Date.now()): void {
    const name = caller.client?.name ?? '(unnamed)';
    // The same client as the last request (what a busy client mostly is): its entry is the most recently
    // touched already (every path below makes it `last`), so its key is not made again nor its place moved.
    const last = this.last;
    if (last && last.name === name && last.version === caller.client?.version && last.userId === caller.userId && this.seen.has(last.key)) {
      seen(last.entry, now);
      return;
    }
    const key = keyOf(caller);
    const entry = this.seen.get(key);
    if (entry) {
      this.last = { key, entry, name: entry.name, version: entry.version, userId: entry.userId };
      seen(entry, now);
      return;
    }
    const added: Seen = {
      name,
      version: caller.client?.version,
      protocolVersion: caller.protocolVersion ?? '',
      userId: caller.userId,
      firstSeen: now,
      lastSeen: now,
      requests: 1,
    };
    this.seen.set(key, added);
    this.last = { key, entry: added, name, version: added.version, userId: added.userId };
  }

  /** Most recently seen first. */
  records(): ClientRecord[] {
    const waiting = new Map<string, number>();
    for (const caller of this.waiting()) waiting.set(keyOf(caller), (waiting.get(keyOf(caller)) ?? 0) + 1);
    return [...this.seen.entries()].map(([key, s]) => ({
      name: s.name,
      version: s.version ?? null,
      protocol_version: s.protocolVersion,
      user_id: s.userId ?? null,
      replica: this.replica,
      first_seen: new Date(s.firstSeen).toISOString(),
      last_seen: new Date(s.lastSeen).toISOString(),
      requests: s.requests,
      waiting_input: waiting.get(key) ?? 0,
    }));
  }
}

function seen(entry: Seen, now: number): void {
  entry.lastSeen = now;
  entry.requests++;
}

/** One entry per program, version and user. */
function keyOf(caller: Pick<CallerContext, 'client' | 'userId'>): string {
  return `${caller.client?.name ?? '(unnamed)'}\u0000${caller.client?.version ?? ''}\u0000${caller.userId ?? ''}`;
}
