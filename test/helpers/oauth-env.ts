/**
 * An authorization server and an MCP server it protects, wired together for
 * tests, plus what a test does "from outside": revoke a token at the
 * authorization server, read the gateway's token file.
 */
import { readFileSync } from 'node:fs';
import type { ClientMetadata } from 'oidc-provider';
import { startAuthorizationServer, type RunningAuthorizationServer } from '../fixtures/oauth-authorization-server.js';
import { startProtectedServer, type RunningProtectedServer } from '../fixtures/oauth-protected-server.js';
import type { StoredAuthorization } from '../../runtime/auth/token-store.js';

const INTROSPECTION_CLIENT = { id: 'protected-mcp-server', secret: 'introspection-secret-0123456789' };

export const MACHINE_CLIENT = { id: 'machine-client', secret: 'machine-secret-0123456789abcdef' };

export interface OAuthEnv {
  as: RunningAuthorizationServer;
  server: RunningProtectedServer;
  /** RFC 7009 revocation, as the (public) client the token was issued to. */
  revoke(token: string, hint: 'access_token' | 'refresh_token', clientId: string): Promise<void>;
  close(): Promise<void>;
}

export async function startOAuthEnv(opts: { accessTokenTtlS?: number } = {}): Promise<OAuthEnv> {
  const clients: ClientMetadata[] = [
    { client_id: INTROSPECTION_CLIENT.id, client_secret: INTROSPECTION_CLIENT.secret, grant_types: [], response_types: [], redirect_uris: [] },
    {
      client_id: MACHINE_CLIENT.id,
      client_secret: MACHINE_CLIENT.secret,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      scope: 'mcp:tools',
    },
  ];
  const as = await startAuthorizationServer({ accessTokenTtlS: opts.accessTokenTtlS, clients });
  const server = await startProtectedServer({ issuer: as.issuer, introspectionClient: INTROSPECTION_CLIENT });
  as.allowResource(server.mcpUrl);
  as.allowResource(server.sseUrl);
  return {
    as,
    server,
    revoke: async (token, hint, clientId) => {
      const res = await fetch(`${as.issuer}/token/revocation`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, token_type_hint: hint, client_id: clientId }),
      });
      if (!res.ok) throw new Error(`revocation failed: HTTP ${res.status} ${await res.text()}`);
    },
    close: async () => {
      await server.close();
      await as.close();
    },
  };
}

export function readTokenFile(file: string): StoredAuthorization {
  return JSON.parse(readFileSync(file, 'utf8')) as StoredAuthorization;
}
