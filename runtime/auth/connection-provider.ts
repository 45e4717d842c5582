/**
 * The OAuthClientProvider of a backend's live connection, handed to the
 * SDK's client transports (`authProvider`). The SDK attaches its token to
 * every request and, on a 401 or a 403 insufficient_scope, runs `auth()`
 * with it: a refresh, or a new client_credentials token, happens there.
 *
 * This provider adds what the SDK leaves to it:
 * - Refresh before expiry: `tokens()` renews a token that is about to
 *   expire (and fetches the first client_credentials token) before the
 *   request goes out, so no request is sent with a dead token.
 * - No browser: it never starts an interactive authorization. Where `auth()`
 *   would redirect the user, it throws AuthorizationRequiredError, which the
 *   connect path turns into "run `gateway-client reauth NAME`". Consent is
 *   collected only by an AuthorizationFlow, on the user's request.
 * - No pointless registration: without a client and without a flow it
 *   stops before `auth()` would register one for a redirect nobody serves.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { auth, type OAuthClientInformationMixed, type OAuthDiscoveryState, type OAuthTokens } from '@modelcontextprotocol/client';
import { AuthorizationRequiredError, TokenUnavailableError } from './errors.js';
import { GatewayOAuthProvider, PLACEHOLDER_REDIRECT } from './provider-base.js';

/**
 * Renew a token this long before it expires, or at half a shorter lifetime
 * (as the token exchanger does): the expiry is counted from when the answer
 * arrived, while a JWT's `exp` is whole seconds from when it was issued, so a
 * margin of a tenth of a short lifetime could send a token its backend
 * already finds expired.
 */
const RENEW_MARGIN_MS = 60_000;

/** Marks the `auth()` calls this provider makes itself, whose `tokens()` must answer from the store. */
const ownAuth = new AsyncLocalStorage<ConnectionOAuthProvider>();

export class ConnectionOAuthProvider extends GatewayOAuthProvider {
  private renewing?: Promise<void>;
  private lastRenewError?: string;

  /**
   * Never undefined for a user's backend: the SDK reads "no redirect URL" as
   * a machine-to-machine client. Nothing listens here; a redirect is refused.
   */
  get redirectUrl(): string | undefined {
    if (this.backend.grant === 'client_credentials') return undefined;
    const registered = this.backend.store.client as { redirect_uris?: string[] } | undefined;
    return this.backend.spec.redirect_uri ?? registered?.redirect_uris?.[0] ?? PLACEHOLDER_REDIRECT;
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    if (ownAuth.getStore() !== this && this.wantsNewToken()) await this.renew();
    return this.currentTokens();
  }

  saveTokens(tokens: OAuthTokens): void {
    this.backend.store.update({ tokens });
    this.lastRenewError = undefined;
    this.backend.tokensSaved();
  }

  redirectToAuthorization(): never {
    const tokens = this.backend.store.tokens;
    // A refresh token that auth() kept means the refresh failed for a passing
    // reason (the SDK drops tokens the server rejected): retrying may work.
    if (tokens?.refresh_token && this.backend.stepUpScope === undefined) {
      // The server may have moved its endpoints: the next try discovers them again.
      this.backend.store.update({ discovery: undefined });
      throw new TokenUnavailableError(this.backend.name, `refreshing the access token failed${this.lastRenewError ? `: ${this.lastRenewError}` : ''}`);
    }
    throw new AuthorizationRequiredError(this.backend.name, this.backend.whyAuthorizationIsNeeded(), this.backend.stepUpScope);
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const client = this.configuredClient() ?? this.backend.store.client;
    if (!client && this.backend.grant === 'authorization_code') {
      throw new AuthorizationRequiredError(this.backend.name, this.backend.whyAuthorizationIsNeeded());
    }
    return client;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.backend.store.update({ client: info });
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.backend.store.discovery;
  }

  saveDiscoveryState(discovery: OAuthDiscoveryState): void {
    this.backend.store.update({ discovery });
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    const store = this.backend.store;
    switch (scope) {
      case 'all':
        store.clear();
        this.backend.lostBecause = 'the authorization server rejected the stored client registration';
        break;
      case 'client':
        store.update({ client: undefined });
        break;
      case 'tokens':
        store.update({ tokens: undefined });
        this.backend.lostBecause = 'the authorization server rejected the refresh token';
        break;
      case 'discovery':
        store.update({ discovery: undefined });
        break;
      case 'verifier':
        this.forgetCodeVerifier();
        break;
    }
  }

  /**
   * The stored tokens. While the backend demands a scope they lack, the
   * refresh token is held back from the SDK's `auth()` (a refresh cannot add
   * a scope, and would only hide the need for consent); this provider's own
   * renewals still use it, so the rest of the backend keeps working.
   */
  private currentTokens(): OAuthTokens | undefined {
    const tokens = this.backend.store.tokens;
    if (!tokens || ownAuth.getStore() === this || this.backend.stepUpScope === undefined) return tokens;
    const { refresh_token: _held, ...rest } = tokens;
    return rest;
  }

  private wantsNewToken(): boolean {
    const tokens = this.backend.store.tokens;
    const machine = this.backend.grant === 'client_credentials';
    if (!tokens) return machine;
    if (!tokens.refresh_token && !machine) return false;
    const expiresAt = this.backend.store.expiresAt;
    if (expiresAt === undefined) return false;
    const lifetimeMs = (tokens.expires_in ?? 0) * 1000;
    return expiresAt - Date.now() < Math.min(RENEW_MARGIN_MS, lifetimeMs / 2);
  }

  /**
   * A new token now, without a user: a refresh, or a new client_credentials
   * token. Rejects with the reason when none could be had.
   */
  async renewNow(): Promise<void> {
    await this.renew();
    if (this.lastRenewError !== undefined) throw new TokenUnavailableError(this.backend.name, this.lastRenewError);
  }

  /**
   * One renewal at a time through the SDK's `auth()`. It never rejects:
   * `tokens()` then sends the request with what there is, and the backend's
   * 401 brings the SDK's own `auth()` and, through redirectToAuthorization,
   * the precise error.
   */
  private renew(): Promise<void> {
    this.renewing ??= ownAuth
      .run(this, async () => {
        await this.discoverFirst(this.backend.serverUrl);
        return auth(this, { serverUrl: this.backend.serverUrl });
      })
      .then(
        () => {
          this.lastRenewError = undefined;
          this.backend.log?.debug({ backend: this.backend.name }, 'access token renewed');
        },
        (err: unknown) => {
          this.lastRenewError = err instanceof Error ? err.message : String(err);
          this.backend.log?.debug({ backend: this.backend.name, err: this.lastRenewError }, 'token renewal failed');
        },
      )
      .finally(() => {
        this.renewing = undefined;
      });
    return this.renewing;
  }
}
