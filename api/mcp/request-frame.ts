/**
 * What a session's request needs of whoever framed it, and what serves it:
 * the session's SDK Server frames most requests (./session-server.ts), the
 * gateway frames a plain tool call itself (./session-direct-calls.ts), and
 * both hand the request to the same `serve`.
 */
import type { JSONRPCRequest, Server } from '@modelcontextprotocol/server';
import type { JsonObject, PeerMessage, ProgressHandler } from '../../runtime/routing/caller.js';

/** What serving one request needs of its framing: the SDK's handler context, or the gateway's own. */
export interface RequestFrame {
  /** Aborts when the client cancels the request or the session closes. */
  signal: AbortSignal;
  /** The request's `_meta.progressToken`, when it asked for progress. */
  progressToken?: string | number;
  /** A request to the client tied to this one (on streamable HTTP it travels on the same response stream). */
  send(request: { method: string; params?: JsonObject }, options: { signal: AbortSignal; onprogress?: ProgressHandler; timeout?: number }): Promise<JsonObject>;
  /** A notification tied to this request. */
  notify(notification: PeerMessage): Promise<void>;
}

/** Serves one request of the session: its result, or a throw of the JSON-RPC error to answer. */
export type ServeRequest = (request: JSONRPCRequest, frame: RequestFrame) => Promise<JsonObject>;

/** What answers for one session: the SDK's Server, and the request serving it and the gateway's own framing share. */
export interface SessionServer {
  server: Server;
  serve: ServeRequest;
}
