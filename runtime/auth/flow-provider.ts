/**
 * The OAuthClientProvider of one interactive authorization (a
 * re-authentication the user asked for). It differs from the connection's:
 * - It shows `auth()` no tokens, so a new authorization is always asked
 *   for, even when a refresh token would still work: the user asked to
 *   re-authenticate.
 * - Its redirect URL is the flow's loopback listener; `state` is the flow's.
 * - It keeps the authorization URL instead of going anywhere: the flow hands
 *   it to whoever asked (the API answer, the CLI, the TUI).
 * - A client it registers and what it discovers stay with the flow until
 *   tokens arrive; then all of it is stored at once. An abandoned flow
 *   leaves the stored authorization as it was, and the live connection
 *   never sees a client that has no tokens yet.
 */
import type { OAuthClientInformationMixed, OAuthDiscoveryState, OAuthTokens } from '@modelcontextprotocol/client';
import type { OAuthBackendState } from './oauth-backend-state.js';
import type { PendingSignIn, ResumableFlow } from './pending-sign-in-store.js';
import { GatewayOAuthProvider } from './provider-base.js';

export class FlowOAuthProvider extends GatewayOAuthProvider {
  /** Set by `auth()` through redirectToAuthorization. */
  authorizationUrl?: URL;
  private client?: OAuthClientInformationMixed;
  private discovery?: OAuthDiscoveryState;
  private storedClientRejected = false;

  constructor(
    backend: OAuthBackendState,
    private readonly callbackUrl: string,
    private readonly flowState: string,
  ) {
    super(backend);
  }

  /** The provider of a flow another replica started, to exchange its code here (./pending-sign-in-store.ts). */
  static resumed(backend: OAuthBackendState, flow: PendingSignIn): FlowOAuthProvider {
    const provider = new FlowOAuthProvider(backend, flow.redirect_uri, '');
    provider.saveCodeVerifier(flow.verifier);
    provider.client = flow.client;
    provider.discovery = flow.discovery;
    return provider;
  }

  /** What another replica needs to exchange this flow's code; called once the authorization URL is known. */
  resumable(scope: string | undefined, resourceMetadataUrl: URL | undefined): ResumableFlow {
    return {
      verifier: this.codeVerifier(),
      ...(this.client ? { client: this.client } : {}),
      ...(this.discovery ? { discovery: this.discovery } : {}),
      ...(scope !== undefined ? { scope } : {}),
      ...(resourceMetadataUrl ? { resource_metadata_url: resourceMetadataUrl.href } : {}),
    };
  }

  get redirectUrl(): string {
    return this.callbackUrl;
  }

  state(): string {
    return this.flowState;
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return undefined;
  }

  saveTokens(tokens: OAuthTokens): void {
    const store = this.backend.store;
    store.update({ tokens, client: this.client ?? store.client, discovery: this.discovery ?? store.discovery });
    this.backend.tokensSaved();
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.authorizationUrl = authorizationUrl;
  }

  /**
   * The configured client, else the one this flow registered, else a stored
   * registration that allows this flow's redirect URL. A registration made
   * for another (ephemeral) port is not reused: not every server lets a
   * loopback port vary, so registering again is the safe way.
   */
  clientInformation(): OAuthClientInformationMixed | undefined {
    const configured = this.configuredClient();
    if (configured) return configured;
    if (this.client) return this.client;
    const stored = this.backend.store.client as (OAuthClientInformationMixed & { redirect_uris?: string[] }) | undefined;
    if (!stored || this.storedClientRejected) return undefined;
    if (stored.redirect_uris && !stored.redirect_uris.includes(this.callbackUrl)) return undefined;
    return stored;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.client = info;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  saveDiscoveryState(discovery: OAuthDiscoveryState): void {
    this.discovery = discovery;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'client') {
      this.client = undefined;
      this.storedClientRejected = true;
    }
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
    if (scope === 'all' || scope === 'verifier') this.forgetCodeVerifier();
  }
}
