/**
 * The gateway behind an identity provider (`incoming_auth.type: oidc`),
 * with nothing configured but the issuer and the audience: a real
 * authorization server (oidc-provider) issuing JWT access tokens for the
 * gateway's resource with a `roles` claim, and the MCP SDK client's own
 * OAuth support, which discovers everything from the gateway's 401
 * (protected resource metadata → authorization server → token) and then
 * calls tools through the gateway:
 *
 *  - machine to machine, the client_credentials grant;
 *  - a user, authorization code with PKCE, signing in and consenting in
 *    headless Chromium (dynamic client registration).
 *
 * Two identities with two roles see two tool lists.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { freePort } from '../../../helpers/ports.js';
import { stdioFixture } from '../../../fixtures/fixture-backend.js';
import { startAuthorizationServer, type RunningAuthorizationServer } from '../../../fixtures/oauth-authorization-server.js';
import { authorizeInBrowser, launchChromium, type HeadlessBrowser } from '../../../helpers/chromium.js';

const MACHINE = { id: 'ci-machine', secret: 'ci-machine-secret-0123456789abcdef' };
const ROLES: Record<string, string[]> = { [MACHINE.id]: ['ci'], alice: ['dev'] };

/** An MCP client's OAuth state for a user: in memory, the authorization URL kept for the "browser". */
class UserClientProvider implements OAuthClientProvider {
  authorizationUrl?: URL;
  private info?: OAuthClientInformationMixed;
  private saved?: OAuthTokens;
  private verifier = '';

  constructor(readonly redirectUrl: string) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'incoming-auth test client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** Where the browser lands after consent: a page that says so (the test reads the code from the URL). */
async function startCallbackPage(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('signed in'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const toolNames = async (c: Client) => (await c.listTools()).tools.map((t) => t.name).sort();

describe('incoming_auth oidc: an MCP client signs in by itself', () => {
  let as: RunningAuthorizationServer;
  let h: Harness;
  let audience: string;

  beforeAll(async () => {
    as = await startAuthorizationServer({
      accessTokenFormat: 'jwt',
      roles: (subject) => ROLES[subject] ?? [],
      clients: [
        {
          client_id: MACHINE.id,
          client_secret: MACHINE.secret,
          grant_types: ['client_credentials'],
          response_types: [],
          redirect_uris: [],
          scope: 'mcp:tools',
        },
      ],
    });
    const port = await freePort();
    audience = `http://127.0.0.1:${port}/mcp`;
    as.allowResource(audience);
    h = await startGateway({
      // The test reads GET /manage/v1/sessions without a token.
      server: { host: '127.0.0.1', port, management: { open: true } },
      backends: { github: stdioFixture(['--name', 'github', '--tools', 'create_issue,delete_repo']) },
      incoming_auth: { type: 'oidc', issuer: as.issuer, audience, required_scopes: ['mcp:tools'] },
      authorization: {
        enabled: true,
        policies: [
          { effect: 'allow', roles: ['ci'], resources: ['tool:github_create_issue'] },
          { effect: 'allow', roles: ['dev'], resources: ['server:github'] },
        ],
      },
    });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await as?.close();
  });

  it('client_credentials: discovers the authorization server from the 401, gets a token for the gateway, calls a tool', async () => {
    // The SDK asks a client_credentials token for the scope its provider names: none, a token the gateway refuses (403).
    const unscoped = new ClientCredentialsProvider({ clientId: MACHINE.id, clientSecret: MACHINE.secret, expectedIssuer: as.issuer });
    await expect(
      new Client({ name: 'ci-machine', version: '1' }).connect(new StreamableHTTPClientTransport(new URL(audience), { authProvider: unscoped })),
    ).rejects.toThrow(/403/);
    const provider = new ClientCredentialsProvider({ clientId: MACHINE.id, clientSecret: MACHINE.secret, expectedIssuer: as.issuer, scope: 'mcp:tools' });
    const client = new Client({ name: 'ci-machine', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(audience), { authProvider: provider }));
    // The token the SDK got is a JWT minted for this gateway, with the machine's roles.
    const token = provider.tokens()!.access_token;
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ iss: as.issuer, aud: audience, roles: ['ci'], client_id: MACHINE.id });
    expect(await toolNames(client)).toEqual(['github_create_issue']);
    const result = await client.callTool({ name: 'github_create_issue', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'github:create_issue' }]);
    await client.close();
  });

  it('authorization code with PKCE: the user signs in in a browser, then the client calls with the roles of that user', async () => {
    const callback = await startCallbackPage();
    let browser: HeadlessBrowser | undefined;
    try {
      const provider = new UserClientProvider(callback.url);
      const first = new StreamableHTTPClientTransport(new URL(audience), { authProvider: provider });
      // No token yet: the SDK discovers, registers, and asks the user to sign in.
      await expect(new Client({ name: 'user-app', version: '1' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
      expect(provider.authorizationUrl?.origin).toBe(as.issuer);
      expect(provider.authorizationUrl?.searchParams.get('resource')).toBe(audience);
      expect(provider.authorizationUrl?.searchParams.get('code_challenge_method')).toBe('S256');
      expect(as.registrations().map((r) => r.client_name)).toContain('incoming-auth test client');

      browser = await launchChromium();
      const landed = await authorizeInBrowser(browser, provider.authorizationUrl!.href, callback.url);
      expect(landed.status).toBe(200);
      const code = new URL(landed.url).searchParams.get('code');
      expect(code).toBeTruthy();
      await first.finishAuth(code!);

      const client = new Client({ name: 'user-app', version: '1' });
      const transport = new StreamableHTTPClientTransport(new URL(audience), { authProvider: provider });
      await client.connect(transport);
      // Role dev may use everything of server github: more than the machine's one tool.
      expect(await toolNames(client)).toEqual(expect.arrayContaining(['github_create_issue', 'github_delete_repo', 'github_echo']));
      const sessions = (await (await fetch(`${h.url}/manage/v1/sessions`)).json()).sessions;
      expect(sessions.find((s: { id: string }) => s.id === transport.sessionId)).toMatchObject({ user_id: 'alice', roles: ['dev'] });
      await client.close();
    } finally {
      await browser?.close();
      await callback.close();
    }
  });
});
