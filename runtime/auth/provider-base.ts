/**
 * What the gateway's two OAuthClientProviders have in common: who the client
 * is (pre-registered in the config, a Client ID Metadata Document URL, or
 * registered dynamically with this metadata) and how a client_credentials
 * token request looks. The SDK's `auth()` does the protocol; these classes
 * only answer its questions.
 */
import {
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  type AddClientAuthentication,
  type OAuthClientInformationFull,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type OAuthTokens,
} from '@modelcontextprotocol/client';
import type { OAuthBackendState } from './oauth-backend-state.js';
import { privateKeyJwtAuth } from './private-key-jwt.js';

/** Where a redirect would go when no flow is running (nothing listens there; see ConnectionOAuthProvider). */
export const PLACEHOLDER_REDIRECT = 'http://127.0.0.1/callback';

export abstract class GatewayOAuthProvider implements OAuthClientProvider {
  /** The PKCE verifier of the authorization in progress; never stored (a flow does not outlive the process). */
  private verifier?: string;

  /**
   * Set for private_key_jwt: the SDK then authenticates every token request
   * (code exchange, refresh, client_credentials) with it instead of a secret.
   */
  readonly addClientAuthentication?: AddClientAuthentication;

  constructor(protected readonly backend: OAuthBackendState) {
    this.addClientAuthentication = privateKeyJwtAuth(backend.name, backend.spec);
  }

  abstract get redirectUrl(): string | undefined;
  abstract tokens(): Promise<OAuthTokens | undefined>;
  abstract saveTokens(tokens: OAuthTokens): void;
  abstract redirectToAuthorization(authorizationUrl: URL): void;
  abstract clientInformation(): OAuthClientInformationMixed | undefined;
  abstract saveClientInformation(info: OAuthClientInformationMixed): void;
  abstract discoveryState(): OAuthDiscoveryState | undefined;
  abstract saveDiscoveryState(discovery: OAuthDiscoveryState): void;
  abstract invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void;

  /**
   * Finds the authorization server before the SDK's `auth()` runs, when no
   * discovery is kept: `auth()` reads the client metadata (and so the token
   * endpoint auth method a registration asks for, chosen from what the
   * server supports) before it discovers anything itself.
   */
  async discoverFirst(serverUrl: URL, resourceMetadataUrl?: URL): Promise<void> {
    if (this.discoveryState()) return;
    this.saveDiscoveryState(await discoverAuthorizationServer(serverUrl, resourceMetadataUrl, this.backend.issuer));
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('No authorization is in progress (no PKCE code verifier)');
    return this.verifier;
  }

  protected forgetCodeVerifier(): void {
    this.verifier = undefined;
  }

  get clientMetadataUrl(): string | undefined {
    return this.backend.spec.client_metadata_url;
  }

  /** What dynamic registration (RFC 7591) asks for. */
  get clientMetadata(): OAuthClientMetadata {
    const interactive = this.backend.grant === 'authorization_code';
    const authMethod = this.backend.spec.token_endpoint_auth_method ?? this.preferredAuthMethod();
    // `application_type` is OpenID registration metadata; plain OAuth servers ignore it. A
    // native client may use loopback redirects on any port (RFC 8252), which is what we do.
    const metadata: OAuthClientMetadata & { application_type?: string } = {
      client_name: `MCP gateway (${this.backend.name})`,
      redirect_uris: interactive ? [this.redirectUrl ?? PLACEHOLDER_REDIRECT] : [],
      grant_types: interactive ? ['authorization_code', 'refresh_token'] : ['client_credentials'],
      response_types: interactive ? ['code'] : [],
      ...(interactive ? { application_type: 'native' } : {}),
      ...(authMethod ? { token_endpoint_auth_method: authMethod } : {}),
      ...(this.backend.spec.scopes?.length ? { scope: this.backend.spec.scopes.join(' ') } : {}),
    };
    return metadata;
  }

  /**
   * client_credentials: the SDK calls this instead of building an
   * authorization_code request. The scope follows the same order as for
   * users: configured, else what the backend asked for, else what it supports.
   */
  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (this.backend.grant !== 'client_credentials') return undefined;
    const wanted = scope ?? this.backend.flowScope() ?? this.discoveryState()?.resourceMetadata?.scopes_supported?.join(' ') ?? undefined;
    const params = new URLSearchParams({ grant_type: 'client_credentials' });
    if (wanted) params.set('scope', wanted);
    return params;
  }

  /**
   * The pre-registered client from the config, carrying the authorization
   * server stamp the SDK gave it on first use (kept in the store), so it is
   * never presented to another server.
   */
  protected configuredClient(): OAuthClientInformationFull | undefined {
    const { client_id, client_secret, token_endpoint_auth_method } = this.backend.spec;
    if (!client_id) return undefined;
    const stored = this.backend.store.client;
    const issuer = stored?.client_id === client_id ? stored.issuer : undefined;
    return {
      client_id,
      ...(client_secret ? { client_secret } : {}),
      ...(token_endpoint_auth_method ? { token_endpoint_auth_method } : {}),
      redirect_uris: this.redirectUrl ? [this.redirectUrl] : [],
      ...(issuer ? { issuer } : {}),
    };
  }

  /**
   * How a dynamically registered client authenticates at the token
   * endpoint, from what the server advertises. A user's client is a native
   * app whose secret would sit next to its tokens anyway, so it is public
   * (PKCE protects the code) when the server allows that; a machine client
   * needs a secret. No list: the server's default.
   */
  private preferredAuthMethod(): string | undefined {
    const supported = this.discoveryState()?.authorizationServerMetadata?.token_endpoint_auth_methods_supported;
    if (!supported) return undefined;
    const order =
      this.backend.grant === 'authorization_code' ? ['none', 'client_secret_basic', 'client_secret_post'] : ['client_secret_basic', 'client_secret_post'];
    return order.find((m) => supported.includes(m));
  }
}

/**
 * The authorization server of a backend and its metadata, as the SDK's
 * discovery finds them (RFC 9728, then RFC 8414 / OpenID), with one
 * difference: the SDK requires the metadata's `issuer` to equal the URL it
 * was fetched for. That guards an authorization server named by the
 * config (`issuer`) or by the
 * backend's Protected Resource Metadata. A backend without one (the
 * 2025-03-26 revision) names none: its origin is only a guess, and a server
 * there whose metadata names another issuer is taken at its word.
 */
async function discoverAuthorizationServer(serverUrl: URL, resourceMetadataUrl: URL | undefined, issuer?: string): Promise<OAuthDiscoveryState> {
  // A configured issuer is the authorization server: its metadata must name it (no guess to forgive).
  if (issuer !== undefined) return { authorizationServerUrl: issuer, authorizationServerMetadata: await discoverAuthorizationServerMetadata(issuer) };
  const resourceMetadata = await discoverOAuthProtectedResourceMetadata(serverUrl, { resourceMetadataUrl }).catch((err: unknown) => {
    // Unreachable is an error; a backend without the document falls back to its origin.
    if (err instanceof TypeError) throw err;
    return undefined;
  });
  const named = resourceMetadata?.authorization_servers?.[0];
  const authorizationServerUrl = named ?? String(new URL('/', serverUrl));
  const authorizationServerMetadata = await discoverAuthorizationServerMetadata(authorizationServerUrl, { skipIssuerValidation: named === undefined });
  return {
    authorizationServerUrl,
    authorizationServerMetadata,
    resourceMetadata,
    ...(resourceMetadataUrl ? { resourceMetadataUrl: resourceMetadataUrl.href } : {}),
  };
}
