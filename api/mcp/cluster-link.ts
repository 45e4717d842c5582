/**
 * What a session's transport needs from the other replicas when sessions
 * are shared (`sessions.store: redis`); with the memory store there is none
 * and the transport does it all in this process. Implemented over Redis
 * (../../runtime/cluster/).
 */
import type { ServerResponse } from 'node:http';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { MirroredEntry } from './sse-stream.js';

/** A connection following a stream held in the shared store; `close` ends it (with a `retry:` hint when draining). */
export interface FollowedStream {
  close(retryMs?: number): void;
}

export interface ClusterLink {
  /** This replica's tag: prefixes the ids of the requests it sends to clients and of the POST streams it opens. */
  readonly tag: string;
  /** A client's answer to a request the replica tagged `tag` sent (that replica waits for it). */
  forwardResponse(sessionId: string, tag: string, message: JSONRPCMessage): void;
  /** A client's `notifications/cancelled`, for whichever replica runs the request. */
  broadcastCancel(sessionId: string, message: JSONRPCMessage): void;
  /** An event of a POST stream of this replica, kept for a resume on another one; `{ end: true }` is its end. */
  mirror(sessionId: string, stream: string, seq: number, entry: MirroredEntry): void;
  /**
   * Takes up on `res` a POST stream another replica produces: the events
   * after `seq`, then the rest as they come, until its end. False (nothing
   * written) when the stream is unknown or expired.
   */
  resume(sessionId: string, stream: string, seq: string, res: ServerResponse, headers: Record<string, string>): Promise<boolean>;
  /** A message for the session's standalone stream, wherever (and whether) a GET stream holds it. */
  sendStandalone(sessionId: string, message: JSONRPCMessage): void;
  /**
   * Opens the session's standalone stream on `res` (after `afterId` when the
   * client resumes); `primed` writes a first event with an id and no data.
   */
  openStandalone(
    sessionId: string,
    res: ServerResponse,
    opts: { afterId?: string; primed: boolean; headers: Record<string, string>; keepAliveMs: number },
  ): Promise<FollowedStream>;
}
