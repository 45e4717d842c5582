/**
 * The other replicas, for calls waiting for their client's input: a repeat
 * that reaches a replica not holding its call is handed to the replica that
 * does (named in the sealed state), so the backend's call is completed
 * exactly once. Over Redis with `sessions.store: redis`
 * (runtime/cluster/redis-round-peers.ts); none otherwise.
 */
import type { JsonObject, ProgressHandler } from '../routing/caller.js';

/** A repeat of a waiting call, as the replica that received it verified it. */
export interface PeerResume {
  /** The waiting call. */
  id: string;
  /** The round the repeat answers. */
  round: number;
  method: string;
  params: JsonObject;
  userId?: string;
  capabilities?: Readonly<Record<string, unknown>>;
  inputResponses?: Readonly<Record<string, unknown>>;
}

/** What the holder answered: the result for the client, or an error (JSON-RPC shape), or that it does not hold the call. */
export type PeerOutcome = { result: JsonObject } | { error: { code: number; message: string; data?: unknown } } | { unknown: true };

export interface RoundPeers {
  /** This replica's tag, named in the states it seals. */
  readonly tag: string;
  /**
   * Has the replica `holder` resume its call; `{ unknown: true }` when it
   * does not hold it or does not answer (gone). `signal` cancels the call
   * there; progress of the call comes to `onprogress`.
   */
  resume(holder: string, request: PeerResume, signal: AbortSignal, onprogress?: ProgressHandler): Promise<PeerOutcome>;
}
