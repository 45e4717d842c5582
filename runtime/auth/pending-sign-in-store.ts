/**
 * Where a user's pending sign-in waits for the browser to come back to the
 * gateway (`server.public_url` set: `GET /oauth/callback`), so that whichever
 * replica the callback reaches can finish it: what the code exchange needs
 * (the PKCE verifier, the client a flow registered, the discovery it made,
 * the redirect URI) and whose it is (backend, user). Keyed by a SHA-256
 * digest of `state`, never by `state` itself; taken at most once (a second
 * callback with the same `state` finds nothing); gone after its TTL.
 *
 * Here the store of a lone process (`sessions.store: memory`); with
 * `sessions.store: redis` the replicas share
 * runtime/cluster/redis-pending-sign-ins.ts, sealed with the per-user token
 * vault's key. Either also tells the others (or nobody) that a sign-in
 * ended, so the replica that started it stops waiting.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { OAuthClientInformationMixed, OAuthDiscoveryState } from '@modelcontextprotocol/client';

/** What finishing a flow on another replica needs of the one that started it (runtime/auth/flow-provider.ts). */
export interface ResumableFlow {
  verifier: string;
  /** The client this flow registered (dynamic registration); a configured client is the config's. */
  client?: OAuthClientInformationMixed;
  discovery?: OAuthDiscoveryState;
  scope?: string;
  resource_metadata_url?: string;
}

export interface PendingSignIn extends ResumableFlow {
  backend: string;
  user: string;
  /** The backend's URL when the flow started: a reconfigured backend does not take a code meant for the old one. */
  server_url: string;
  redirect_uri: string;
}

/** A sign-in ended (`failure` unset: tokens stored) on the replica the browser came back to. */
export interface SignInEnded {
  backend: string;
  user: string;
  failure?: string;
}

export interface PendingSignInStore {
  put(digest: string, record: PendingSignIn, ttlMs: number): Promise<void>;
  /** The record, removed in the same step (single use), or undefined when unknown, taken or expired. */
  take(digest: string): Promise<PendingSignIn | undefined>;
  /** Tells the other replicas (none here). */
  announce(ended: SignInEnded): void;
  /** Hears what the other replicas announce. */
  onEnded(listener: (ended: SignInEnded) => void): void;
}

/** The key of a flow's record: its `state` is a bearer secret and is not kept anywhere. */
export function stateDigest(state: string): string {
  return createHash('sha256').update(state).digest('hex');
}

/** Pending sign-ins at once in one process; one more drops the oldest (its user starts again). */
const MAX_PENDING = 10_000;

export class MemoryPendingSignInStore implements PendingSignInStore {
  private readonly records = new LRUCache<string, PendingSignIn>({ max: MAX_PENDING, ttlAutopurge: false });

  async put(digest: string, record: PendingSignIn, ttlMs: number): Promise<void> {
    this.records.set(digest, record, { ttl: ttlMs });
  }

  async take(digest: string): Promise<PendingSignIn | undefined> {
    const record = this.records.get(digest);
    this.records.delete(digest);
    return record;
  }

  announce(): void {}

  onEnded(): void {}
}
