/**
 * What a session's server tells the shared store when the client changes
 * the session (`sessions.store: redis`): the other replicas must know its
 * log level, its subscriptions and that it is initialized. With the memory
 * store there is nothing to tell.
 */
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { ClientSession } from './client-session.js';

export interface SharedSessionState {
  /** The client sent notifications/initialized. */
  initialized(session: ClientSession): void;
  logLevel(session: ClientSession, level: LoggingLevel): void;
  /** The capability snapshot changed (a list call). */
  snapshot(session: ClientSession): void;
  subscribe(session: ClientSession, uri: string): Promise<void>;
  unsubscribe(session: ClientSession, uri: string): Promise<void>;
}
