/**
 * The client sessions of /mcp and /sse, as an interface: in this process's
 * memory (./memory-session-table.ts), or shared by every replica through
 * Redis (./redis-session-table.ts), where this replica caches the sessions
 * it serves. It is also the fan-out's directory of clients
 * (runtime/routing/client-fanout.ts).
 */
import type { ClientDirectory } from '../../runtime/routing/client-fanout.js';
import type { SessionRecord } from '../../schemas/api.js';
import type { SessionState } from '../../schemas/session-state.js';
import type { SessionStoreType } from '../../schemas/config.js';
import type { ClientSession } from './client-session.js';
import type { SessionChanges } from './session-changes.js';

export interface SessionLimits {
  /** Seconds a session may stay idle before it expires (`server.session_ttl`). */
  ttlSeconds: number;
  /** Sessions open at once (`server.max_sessions`): in this process, or in the cluster. */
  maxSessions: number;
}

/** What a client refused for the session limit is told to wait before trying again. */
export const SESSION_RETRY_AFTER_S = 5;

/**
 * `ok`: reachable. `degraded`: reached since this replica started and lost
 * now: it serves the sessions it holds (and is ready), refuses new ones and
 * the ones it does not hold (503). `unavailable`: not reached since it
 * started: it holds nothing to serve (not ready).
 */
export type StoreStatus = 'ok' | 'degraded' | 'unavailable';

export interface StoreState {
  type: SessionStoreType;
  status: StoreStatus;
  /** Why it is not `ok` (the last error), in one line. */
  reason?: string;
}

export interface SessionTable extends ClientDirectory {
  /** Throws (503 with Retry-After) when a new session cannot be made now: the limit, an unreachable store. */
  admit(): void;
  /** A new session (its initialize arrived); the shared store may still refuse it (the cluster's limit, unreachable). */
  add(session: ClientSession): void | Promise<void>;
  /** A session this replica serves now (the memory store: every session). */
  get(id: string): ClientSession | undefined;
  /**
   * A session this replica does not serve yet: loaded from the shared store
   * and taken up with `adopt`. Undefined when no one knows it (always, with
   * the memory store).
   */
  resolve(id: string, adopt: (state: SessionState) => Promise<ClientSession>): Promise<ClientSession | undefined>;
  all(): Iterable<ClientSession>;
  /** Sessions served by this process now. */
  readonly size: number;
  /** Forgets a session whose transport closed here (client DELETE, SSE disconnect, shut down); told to `onEnded` listeners. */
  forget(id: string): Promise<void>;
  /** The client ended the session (DELETE): it ends for every replica. */
  end(id: string): Promise<void>;
  /** Closes a session's transport here and forgets it. */
  close(id: string): Promise<void>;
  /** Ends the connection of every GET stream held here with a `retry:` hint: their clients reconnect (to another replica). */
  endStreams(retryMs: number): void;
  /** Closes every session served here (a shared store keeps them for the other replicas). */
  closeAll(): Promise<void>;
  /** Told when a session has ended here, however it ended (its subscriptions here end with it). */
  onEnded(listener: (id: string) => Promise<void> | void): () => void;
  /** The records of GET /sessions (spec 2.4): every session of the cluster. */
  records(): Promise<SessionRecord[]>;
  /** New limits (a reload). */
  setLimits(limits: SessionLimits): void;
  /** Starts expiring idle sessions (and, shared, writing activity back). */
  startReaper(): void;
  /** The store, for GET /status and GET /ready. */
  storeState(): StoreState;
  /** What changes a session beyond this replica (log level, subscriptions); undefined with the memory store. */
  readonly shared?: SessionChanges;
}
