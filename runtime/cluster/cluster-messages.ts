/**
 * What replicas tell each other over pub/sub. On the bus (every replica):
 * a session ended, a session's client finished initializing (it may have told another replica than the one that made the
 * session), a client's cancellation, a session field others cache changed, a session's subscriptions changed, a replica took a session's
 * GET stream. On a replica's own channel: a client's answer to one of its
 * requests, a connection on another replica following one of its POST
 * streams. `from` is the sender's tag (a replica ignores its own broadcasts).
 */
import type { JSONRPCMessage, LoggingLevel } from '@modelcontextprotocol/client';

export type ClusterMessage =
  | { t: 'ended'; s: string; from: string }
  | { t: 'initialized'; s: string; from: string }
  | { t: 'cancel'; s: string; m: JSONRPCMessage; from: string }
  | { t: 'log-level'; s: string; level: LoggingLevel; from: string }
  | { t: 'subscriptions'; s: string; uris: string[]; from: string }
  | { t: 'holder'; s: string; from: string }
  | { t: 'response'; s: string; m: JSONRPCMessage; from: string }
  | { t: 'follower'; s: string; stream: string; delta: 1 | -1; from: string };

export function encodeMessage(m: ClusterMessage): string {
  return JSON.stringify(m);
}

/** A message from the bus, or undefined for anything else (another version's, or garbage). */
export function decodeMessage(text: string): ClusterMessage | undefined {
  try {
    const m = JSON.parse(text) as Partial<ClusterMessage>;
    return typeof m === 'object' && m !== null && typeof m.t === 'string' && typeof m.s === 'string' && typeof m.from === 'string'
      ? (m as ClusterMessage)
      : undefined;
  } catch {
    return undefined;
  }
}
