/**
 * Per-user consent (`auth.on_behalf_of.type: user_oauth`): each user signs
 * in to the backend's own authorization server once, and that user's calls
 * carry that user's token. It is the gateway-wide outgoing OAuth
 * (BackendAuthManager) keyed by backend and user instead of by backend:
 * the same OAuthBackendState, connection provider (refresh before expiry),
 * AuthorizationFlow (PKCE) and PendingFlow, over a per-user store
 * (UserTokenSlot) sealed in the vault (files, or Redis with shared
 * sessions). The browser comes back to the gateway's own route when
 * `server.public_url` is set (./sign-in-callbacks.ts: any replica finishes
 * the sign-in), else to a loopback listener on the gateway's machine.
 *
 * - `authorizationFor(backend, spec, user)`: the `Authorization` of this
 *   user's call; without a usable token, a sign-in flow is started (or
 *   joined) and the call fails with UserAuthorizationRequiredError naming
 *   its URL. Other users are not concerned.
 * - `startSignIn(backend, spec, user)`: the same flow on request
 *   (`POST /reauth/{name}?user=`), resolving with its URL.
 * - `revoke(backend, user)`: forgets the user's tokens; the next call asks again.
 */
import { EventEmitter } from 'node:events';
import { LRUCache } from 'lru-cache';
import type { BackendSpec, HttpBackendSpec, UserOAuthSpec } from '../../schemas/config.js';
import type { Logger } from '../observability/logging/logger.js';
import type { Redactor } from '../observability/logging/redactor.js';
import { DEFAULT_FLOW_TIMEOUT_MS } from './backend-auth-manager.js';
import { ConnectionOAuthProvider } from './connection-provider.js';
import { AUTHORIZED, exchangeCode } from './authorization-flow.js';
import type { CallbackOutcome, CallbackResult, OpenCallbackReceiver } from './callback-listener.js';
import { FlowOAuthProvider } from './flow-provider.js';
import { MemoryPendingSignInStore, type PendingSignIn, type PendingSignInStore, type SignInEnded } from './pending-sign-in-store.js';
import { SignInCallbacks } from './sign-in-callbacks.js';
import { ReauthNotSupportedError, TokenUnavailableError, UserAuthorizationRequiredError } from './errors.js';
import { OAuthBackendState, type OAuthSpec } from './oauth-backend-state.js';
import { PendingFlow } from './pending-flow.js';
import { UserTokenSlot } from './user-token-slot.js';
import type { UserTokenVault } from './user-token-vault.js';

/** Users held in memory at once; one evicted is read from the vault again at its next call. */
const MAX_USERS = 10_000;

export interface UserSignInsOptions {
  vault: UserTokenVault;
  redactor: Redactor;
  log?: Logger;
  flowTimeoutMs?: number;
  /** Where sign-ins coming back to the gateway wait (default: this process's memory). */
  pending?: PendingSignInStore;
  /** `server.public_url` of the running config: set, the browser comes back to the gateway's route. */
  publicUrl?: () => string | undefined;
  /** A backend's spec in the running config: a sign-in another replica started is finished with it. */
  specOf?: (name: string) => BackendSpec | undefined;
}

export interface UserSignInEvents {
  /** A user's call needed a sign-in and a flow was started for it (once per flow, not per call). */
  sign_in_required: [backend: string, user: string, authorizationUrl: string];
  /** The user's flow stored tokens. */
  signed_in: [backend: string, user: string];
  /** The user's flow ended without tokens; `reason` is one sentence. */
  sign_in_failed: [backend: string, user: string, reason: string];
  /** The backend answered 401 to the user's token: it was dropped (the user's next sign-in follows). */
  token_refused: [backend: string, user: string];
}

interface Entry {
  slot: UserTokenSlot;
  backend: OAuthBackendState;
  provider: ConnectionOAuthProvider;
  pending: PendingFlow;
}

export class UserSignIns extends EventEmitter<UserSignInEvents> {
  /** An evicted user's pending flow lives on: its tokens land in the vault through its own slot. */
  private readonly entries = new LRUCache<string, Entry>({ max: MAX_USERS });
  private readonly flowTimeoutMs: number;
  private readonly pending: PendingSignInStore;
  /** The sign-ins that come back to the gateway's route (`GET /oauth/callback`). */
  readonly callbacks: SignInCallbacks;

  constructor(private readonly opts: UserSignInsOptions) {
    super();
    this.flowTimeoutMs = opts.flowTimeoutMs ?? DEFAULT_FLOW_TIMEOUT_MS;
    this.pending = opts.pending ?? new MemoryPendingSignInStore();
    this.callbacks = new SignInCallbacks(this.pending, (record, result) => this.resume(record, result), this.flowTimeoutMs);
    this.pending.onEnded((ended) => this.endedElsewhere(ended));
  }

  /** Resolves once this user's sign-in to the backend stored tokens; rejects when it fails or `signal` aborts. */
  whenSignedIn(backend: string, user: string, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const stop = () => {
        this.off('signed_in', onSignedIn);
        this.off('sign_in_failed', onFailed);
        signal.removeEventListener('abort', onAbort);
      };
      const onSignedIn = (b: string, u: string) => {
        if (b !== backend || u !== user) return;
        stop();
        resolve();
      };
      const onFailed = (b: string, u: string, reason: string) => {
        if (b !== backend || u !== user) return;
        stop();
        reject(new Error(`the sign-in to ${backend} failed: ${reason}`));
      };
      const onAbort = () => {
        stop();
        reject(new Error(`no sign-in to ${backend} completed in time`));
      };
      if (signal.aborted) return onAbort();
      this.on('signed_in', onSignedIn);
      this.on('sign_in_failed', onFailed);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** `Bearer <the user's access token>`, refreshed when due; rejects with UserAuthorizationRequiredError when the user must sign in. */
  async authorizationFor(name: string, spec: HttpBackendSpec, obo: UserOAuthSpec, user: string): Promise<string> {
    const entry = this.entry(name, spec, obo, user);
    await entry.slot.sync();
    const tokens = await entry.provider.tokens();
    if (tokens?.access_token !== undefined) {
      const expiresAt = entry.slot.expiresAt;
      // Refreshing failed for a passing reason (the SDK drops tokens the server refused): worth a retry, not a new sign-in.
      if (expiresAt !== undefined && expiresAt <= Date.now()) throw new TokenUnavailableError(name, 'the access token expired and refreshing it failed');
      return `Bearer ${tokens.access_token}`;
    }
    const fresh = entry.pending.url === undefined;
    const url = await this.begin(name, entry, user);
    if (fresh) this.emit('sign_in_required', name, user, url);
    throw new UserAuthorizationRequiredError(name, user, url);
  }

  /**
   * Starts this user's sign-in (or joins the pending one); resolves with the
   * authorization URL. Rejects with ReauthNotSupportedError when the backend
   * does not act for each user.
   */
  startSignIn(name: string, spec: BackendSpec, user: string): Promise<string> {
    const obo = userOAuthOf(spec);
    if (spec.type === 'stdio' || obo === undefined) return Promise.reject(new ReauthNotSupportedError(name, user));
    return this.begin(name, this.entry(name, spec, obo, user), user);
  }

  /**
   * Forgets the user's tokens for this backend (a pending flow is
   * abandoned); false when there were none. Rejects with
   * ReauthNotSupportedError when the backend does not act for each user.
   */
  async revoke(name: string, spec: BackendSpec, user: string): Promise<boolean> {
    if (userOAuthOf(spec) === undefined) throw new ReauthNotSupportedError(name, user);
    for (const [key, entry] of this.entries.entries()) {
      if (entry.slot.backend !== name || entry.slot.user !== user) continue;
      entry.pending.cancel('the sign-in was revoked');
      await entry.slot.flushed().catch(() => undefined);
      this.entries.delete(key);
    }
    return this.opts.vault.delete(name, user);
  }

  /**
   * The backend refused `authorization` (401), sent for this user: that
   * token is forgotten (in the vault too, so no replica sends it again),
   * unless the user already holds another one. The caller then asks for
   * the user's authorization again, which starts a sign-in as at first.
   */
  async tokenRefused(name: string, user: string, authorization: string): Promise<void> {
    for (const entry of this.entries.values()) {
      if (entry.slot.backend !== name || entry.slot.user !== user) continue;
      await entry.slot.sync();
      const held = entry.slot.tokens?.access_token;
      if (held === undefined || `Bearer ${held}` !== authorization) continue;
      entry.slot.clear();
      await entry.slot.flushed();
      this.emit('token_refused', name, user);
    }
  }

  /** Shutdown: pending flows are abandoned. */
  close(): void {
    for (const entry of this.entries.values()) entry.pending.cancel('the gateway is shutting down');
  }

  private async begin(name: string, entry: Entry, user: string): Promise<string> {
    const publicUrl = this.opts.publicUrl?.();
    const serverUrl = entry.backend.serverUrl.href;
    const open: OpenCallbackReceiver | undefined = publicUrl ? async (o) => this.callbacks.receiver(publicUrl, serverUrl, user, o) : undefined;
    try {
      return await entry.pending.start(entry.backend, { timeoutMs: this.flowTimeoutMs, open }, (failure) => void this.ended(name, user, entry, failure));
    } catch (err) {
      throw new TokenUnavailableError(name, `the sign-in of user '${user}' could not start: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private async ended(name: string, user: string, entry: Entry, failure: string | undefined): Promise<void> {
    if (failure !== undefined) return void this.emit('sign_in_failed', name, user, failure);
    try {
      // Stored before anyone hears of it: the user's next call, on any replica, finds the token.
      await entry.slot.flushed();
    } catch (err) {
      return void this.emit('sign_in_failed', name, user, `the tokens could not be stored: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.emit('signed_in', name, user);
  }

  /**
   * The browser came back to this replica with the code of a sign-in
   * another one started: exchanged here with what the record kept, stored in
   * the shared vault, and announced so the starting replica stops waiting.
   */
  private async resume(record: PendingSignIn, result: CallbackResult): Promise<CallbackOutcome> {
    const { backend: name, user } = record;
    const spec = this.opts.specOf?.(name);
    const obo = spec && userOAuthOf(spec);
    if (!spec || spec.type === 'stdio' || !obo || new URL(spec.url).href !== record.server_url) {
      return { ok: false, message: 'the backend was removed or reconfigured since this sign-in started; start it again.' };
    }
    const entry = this.entry(name, spec, obo, user);
    await entry.slot.sync();
    const provider = FlowOAuthProvider.resumed(entry.backend, record);
    const resourceMetadataUrl = record.resource_metadata_url === undefined ? undefined : new URL(record.resource_metadata_url);
    let failure = await exchangeCode(entry.backend, provider, result, record.scope, resourceMetadataUrl);
    if (failure === undefined) {
      failure = await entry.slot.flushed().then(
        () => undefined,
        (err: unknown) => `the tokens could not be stored: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    this.pending.announce({ backend: name, user, ...(failure !== undefined ? { failure } : {}) });
    if (failure !== undefined) {
      this.emit('sign_in_failed', name, user, failure);
      return { ok: false, message: `${failure}.` };
    }
    this.emit('signed_in', name, user);
    return AUTHORIZED;
  }

  /** Another replica finished this user's sign-in: a flow pending here ends as it did there. */
  private endedElsewhere({ backend, user, failure }: SignInEnded): void {
    for (const entry of this.entries.values()) {
      if (entry.slot.backend === backend && entry.slot.user === user) entry.pending.endedElsewhere(failure);
    }
  }

  /** One entry per backend config and user: another config (a reload) starts afresh, with the same vault. */
  private entry(name: string, spec: HttpBackendSpec, obo: UserOAuthSpec, user: string): Entry {
    const key = JSON.stringify([name, spec.url, obo, user]);
    const existing = this.entries.get(key);
    if (existing) return existing;
    const slot = new UserTokenSlot(this.opts.vault, name, user, spec.url, this.opts.redactor);
    const oauth: OAuthSpec = {
      type: 'oauth',
      ...(obo.client_id !== undefined ? { client_id: obo.client_id } : {}),
      ...(obo.client_secret !== undefined ? { client_secret: obo.client_secret } : {}),
      ...(obo.scopes !== undefined ? { scopes: obo.scopes } : {}),
    };
    const backend = new OAuthBackendState(name, new URL(spec.url), oauth, slot, this.opts.log, obo.issuer);
    const entry: Entry = { slot, backend, provider: new ConnectionOAuthProvider(backend), pending: new PendingFlow() };
    this.entries.set(key, entry);
    return entry;
  }
}

/** The `on_behalf_of` of a backend whose users each sign in, if it is one. */
function userOAuthOf(spec: BackendSpec): UserOAuthSpec | undefined {
  if (spec.type === 'stdio' || spec.auth === undefined || !('on_behalf_of' in spec.auth)) return undefined;
  return spec.auth.on_behalf_of.type === 'user_oauth' ? spec.auth.on_behalf_of : undefined;
}
