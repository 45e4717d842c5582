/**
 * What a 2025-11-25 session's server tells the session store when the client
 * changes its session: that it is initialized, its log level, what it was
 * last shown, and its resource subscriptions. One interface, two stores: in
 * this process (./local-session-changes.ts: only the subscriptions matter,
 * and they are made here), or shared by the replicas through Redis
 * (./redis-session-table.ts: every change is written for the others, and
 * the replica holding the session's GET stream subscribes the backends).
 */
import type { LoggingLevel } from '@modelcontextprotocol/server';
import type { ClientSession } from './client-session.js';

export interface SessionChanges {
  /** The client sent notifications/initialized. */
  initialized(session: ClientSession): void;
  logLevel(session: ClientSession, level: LoggingLevel): void;
  /** The capability snapshot changed (a list call). */
  snapshot(session: ClientSession): void;
  /** A known resource URI the session may read (the method checked both). */
  subscribe(session: ClientSession, uri: string): Promise<void>;
  unsubscribe(session: ClientSession, uri: string): Promise<void>;
}
