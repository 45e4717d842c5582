/**
 * Where a user's pending sign-in waits for the browser to come back to the
 * gateway (`server.public_url` set: `GET /oauth/callback`), so that whichever
 * replica the callback reaches can finish it: what the code exchange needs
 * (the PKCE verifier, the client a flow registered, the discovery it made,
 * the redirect URI) and whose it is (backend, user). Keyed by a SHA-256
 * digest of `state`, never by `state` itself; taken at most once (a second
 * callback with the same `state` finds nothing); gone after its TTL. Also
 * found by the digest of its start id, the last part of the consent page's
 * URL (`/oauth/start/<id>`, ./sign-in-start.ts), which is what the user is
 * handed instead of the authorization server's URL.
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
  /** The authorization server's URL (with `state`), where the consent page sends the browser. */
  authorization_url: string;
  /** The digest of the flow's start id (the consent page `/oauth/start/<id>`). */
  start_digest: string;
  /** The value of the cookie the consent page gives the browser, which the callback must bring back. */
  browser_key: string;
}

/** A sign-in ended (`failure` unset: tokens stored) on the replica the browser came back to. */
export interface SignInEnded {
  backend: string;
  user: string;
  failure?: string;
}

export interface PendingSignInStore {
  /** Keeps the record under the digest of its `state`, and of its start id (`record.start_digest`). */
  put(digest: string, record: PendingSignIn, ttlMs: number): Promise<void>;
  /** The record, left in place (a refused callback does not end the flow), or undefined when unknown, taken or expired. */
  find(digest: string): Promise<PendingSignIn | undefined>;
  /** The record a consent page's start id leads to, with the digest of its `state`. */
  findByStart(startDigest: string): Promise<{ digest: string; record: PendingSignIn } | undefined>;
  /** The record, removed in the same step (single use), or undefined when unknown, taken or expired. */
  take(digest: string): Promise<PendingSignIn | undefined>;
  /** Tells the other replicas (none here). */
  announce(ended: SignInEnded): void;
  /** Hears what the other replicas announce. */
  onEnded(listener: (ended: SignInEnded) => void): void;
}

/** The key of a flow's record: its `state` (and its start id) are bearer secrets and are not kept as keys. */
export function stateDigest(state: string): string {
  return createHash('sha256').update(state).digest('hex');
}

/** Pending sign-ins at once in one process; one more drops the oldest (its user starts again). */
const MAX_PENDING = 10_000;

export class MemoryPendingSignInStore implements PendingSignInStore {
  private readonly records = new LRUCache<string, PendingSignIn>({ max: MAX_PENDING, ttlAutopurge: false });
  /** Start id digest → state digest; a link whose record is gone leads nowhere. */
  private readonly starts = new LRUCache<string, string>({ max: MAX_PENDING, ttlAutopurge: false });

  async put(digest: string, record: PendingSignIn, ttlMs: number): Promise<void> {
    this.records.set(digest, record, { ttl: ttlMs });
    this.starts.set(record.start_digest, digest, { ttl: ttlMs });
  }

  async find(digest: string): Promise<PendingSignIn | undefined> {
    return this.records.get(digest);
  }

  async findByStart(startDigest: string): Promise<{ digest: string; record: PendingSignIn } | undefined> {
    const digest = this.starts.get(startDigest);
    const record = digest === undefined ? undefined : this.records.get(digest);
    return digest !== undefined && record ? { digest, record } : undefined;
  }

  async take(digest: string): Promise<PendingSignIn | undefined> {
    const record = this.records.get(digest);
    this.records.delete(digest);
    if (record) this.starts.delete(record.start_digest);
    return record;
  }

  announce(): void {}

  onEnded(): void {}
}
