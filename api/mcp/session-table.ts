/**
 * The client sessions of /mcp and /sse, as an interface: today's
 * implementation keeps them in this process's memory
 * (./memory-session-table.ts); a shared store can sit behind the same
 * interface. It is also the fan-out's directory of clients
 * (runtime/routing/client-fanout.ts).
 */
import type { ClientDirectory } from '../../runtime/routing/client-fanout.js';
import type { SessionRecord } from '../../schemas/api.js';
import type { ClientSession } from './client-session.js';

export interface SessionLimits {
  /** Seconds a session may stay idle before the reaper closes it (`server.session_ttl`). */
  ttlSeconds: number;
  /** Sessions open at once (`server.max_sessions`). */
  maxSessions: number;
}

/** What a client refused for the session limit is told to wait before trying again. */
export const SESSION_RETRY_AFTER_S = 5;

export interface SessionTable extends ClientDirectory {
  /** Throws TooManySessionsError (503 with Retry-After) when a new session would exceed the limit. */
  admit(): void;
  add(session: ClientSession): void;
  get(id: string): ClientSession | undefined;
  all(): Iterable<ClientSession>;
  readonly size: number;
  /** Forgets a session whose transport closed (client DELETE, SSE disconnect); told to `onEnded` listeners. */
  forget(id: string): Promise<void>;
  /** Ends a session (closes its transport) and forgets it. */
  close(id: string): Promise<void>;
  closeAll(): Promise<void>;
  /** Told when a session has ended, however it ended (its subscriptions end with it). */
  onEnded(listener: (id: string) => Promise<void> | void): () => void;
  /** The records of GET /sessions (spec 2.4). */
  records(): SessionRecord[];
  /** New limits (a reload). */
  setLimits(limits: SessionLimits): void;
  /** Starts closing sessions idle past the TTL. */
  startReaper(): void;
}
