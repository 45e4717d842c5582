/**
 * Outgoing OAuth for the whole gateway: one per process. Per backend with
 * `auth.type: oauth` it keeps the token store, the connection's provider
 * (shared by every reconnect, so a refresh is never lost) and at most one
 * pending re-authentication flow.
 *
 * - `httpAuth(name, spec)`: what the backend's transport authenticates with.
 * - `startReauth(name, spec)`: starts (or joins) the flow; resolves at once
 *   with the authorization URL. When the flow ends, `reauthenticated` or
 *   `reauth_failed` is emitted; the caller reconnects the backend.
 *
 * Tokens live in `<state>/tokens/<backend>.json` (see token-store.ts).
 */
import { EventEmitter } from 'node:events';
import type { BackendSpec, HttpBackendSpec } from '../../schemas/config.js';
import type { Logger } from '../observability/logging/logger.js';
import type { Redactor } from '../observability/logging/redactor.js';
import { tokensDir } from '../state-dir.js';
import { ConnectionOAuthProvider } from './connection-provider.js';
import { ReauthNotSupportedError } from './errors.js';
import { OAuthBackendState, type OAuthSpec } from './oauth-backend-state.js';
import { PendingFlow } from './pending-flow.js';
import type { HttpAuth } from '../transports/node-streamable-http-client-transport.js';
import type { OAuthSource } from '../transports/create-backend-transport.js';
import { TokenStore, tokenFile } from './token-store.js';

/** How long a flow waits for the browser before it is abandoned. */
export const DEFAULT_FLOW_TIMEOUT_MS = 10 * 60_000;

export interface BackendAuthManagerOptions {
  /** Default `tokensDir()`: `<state>/tokens`. */
  tokensDir?: string;
  /** The gateway's redactor: tokens are registered with it as they are loaded. */
  redactor: Redactor;
  log?: Logger;
  flowTimeoutMs?: number;
}

export interface ReauthStarted {
  /** Where the user authorizes; null for client_credentials, which needs nobody. */
  authorization_url: string | null;
}

export interface BackendAuthEvents {
  /** A flow stored new tokens: reconnect the backend. */
  reauthenticated: [backend: string];
  /** A flow ended without tokens; `reason` is one sentence for the user. */
  reauth_failed: [backend: string, reason: string];
}

interface Entry {
  /** The config this entry was built for; another one rebuilds it. */
  key: string;
  backend: OAuthBackendState;
  provider: ConnectionOAuthProvider;
  pending: PendingFlow;
}

export class BackendAuthManager extends EventEmitter<BackendAuthEvents> implements OAuthSource {
  private readonly entries = new Map<string, Entry>();
  private readonly dir: string;
  private readonly redactor: Redactor;
  private readonly flowTimeoutMs: number;

  constructor(private readonly opts: BackendAuthManagerOptions) {
    super();
    this.dir = opts.tokensDir ?? tokensDir();
    this.redactor = opts.redactor;
    this.flowTimeoutMs = opts.flowTimeoutMs ?? DEFAULT_FLOW_TIMEOUT_MS;
  }

  /**
   * What the transport of an `sse`/`streamable-http` backend with
   * `auth.type: oauth` authenticates with: the connection's provider (shared
   * by every reconnect, so a refresh is never lost), and where each challenge
   * (scope, resource metadata) is noted for the next authorization.
   */
  httpAuth(name: string, spec: HttpBackendSpec): HttpAuth {
    const { provider, backend } = this.entry(name, spec);
    return {
      provider,
      onChallenge: (status, res) => backend.noteChallenge(status, res),
      discover: (resourceMetadataUrl) => provider.discoverFirst(backend.serverUrl, resourceMetadataUrl),
    };
  }

  /**
   * Starts the interactive re-authentication of `name`, or joins the one
   * already pending (same URL). Rejects with ReauthNotSupportedError when the
   * backend has no `auth.type: oauth`, and with an Error saying why when the
   * flow cannot start (discovery, registration, the callback port).
   */
  async startReauth(name: string, spec: BackendSpec): Promise<ReauthStarted> {
    if (spec.type === 'stdio' || spec.auth?.type !== 'oauth') throw new ReauthNotSupportedError(name);
    const entry = this.entry(name, spec);
    if (entry.backend.grant === 'client_credentials') {
      this.renewMachineToken(name, entry);
      return { authorization_url: null };
    }
    const url = await entry.pending.start(entry.backend, { timeoutMs: this.flowTimeoutMs }, (failure) =>
      failure === undefined ? this.emit('reauthenticated', name) : this.emit('reauth_failed', name, failure),
    );
    return { authorization_url: url };
  }

  /** The authorization URL of the pending flow, if any. */
  pendingReauth(name: string): string | undefined {
    return this.entries.get(name)?.pending.url;
  }

  /** A backend left the config: drop what is held in memory (its token file stays). */
  forget(name: string): void {
    this.entries.get(name)?.pending.cancel('the backend was removed from the configuration');
    this.entries.delete(name);
  }

  /** Shutdown: pending flows are abandoned. */
  close(): void {
    for (const entry of this.entries.values()) entry.pending.cancel('the gateway is shutting down');
  }

  private entry(name: string, spec: HttpBackendSpec): Entry {
    const auth: OAuthSpec | undefined = spec.auth?.type === 'oauth' ? spec.auth : undefined;
    if (!auth) throw new Error(`Backend '${name}' has no auth.type: oauth`);
    const key = JSON.stringify([spec.url, auth]);
    const existing = this.entries.get(name);
    if (existing?.key === key) return existing;
    existing?.pending.cancel('the backend configuration changed');
    const store = new TokenStore(tokenFile(this.dir, name), spec.url, this.redactor);
    const backend = new OAuthBackendState(name, new URL(spec.url), auth, store, this.opts.log);
    const entry: Entry = { key, backend, provider: new ConnectionOAuthProvider(backend), pending: new PendingFlow() };
    this.entries.set(name, entry);
    return entry;
  }

  private renewMachineToken(name: string, entry: Entry): void {
    entry.backend.store.update({ tokens: undefined });
    entry.provider.renewNow().then(
      () => this.emit('reauthenticated', name),
      (err: unknown) => this.emit('reauth_failed', name, err instanceof Error ? err.message : String(err)),
    );
  }
}
