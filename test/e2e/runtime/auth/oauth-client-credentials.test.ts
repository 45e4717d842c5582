/**
 * Outgoing auth without a user: OAuth client_credentials (pre-registered
 * client, or one the gateway registers itself), over Streamable HTTP and
 * SSE, and a static bearer token. Real authorization server, real protected
 * MCP server, real SDK Client; no browser anywhere.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ClientMetadata } from 'oidc-provider';
import { backendHeaders } from '../../../../runtime/auth/auth-headers.js';
import { BackendAuthManager } from '../../../../runtime/auth/backend-auth-manager.js';
import { isAuthorizationRequired } from '../../../../runtime/auth/errors.js';
import { tokenFile } from '../../../../runtime/auth/token-store.js';
import { REDACTED, Redactor } from '../../../../runtime/observability/logging/redactor.js';
import { NodeStreamableHttpClientTransport } from '../../../../runtime/transports/node-streamable-http-client-transport.js';
import type { HttpBackendSpec } from '../../../../schemas/config.js';
import { readTokenFile } from '../../../helpers/token-file.js';
import { MACHINE_CLIENT, startOAuthEnv, type OAuthEnv } from '../../../fixtures/oauth-env.js';
import { AS_PROCESS, createBackendTransport } from '../../../../runtime/transports/create-backend-transport.js';

/** Machine clients registered with their public key only: they authenticate with private_key_jwt (RFC 7523). */
const SIGNERS = {
  ec: { id: 'jwt-ec-client', keys: generateKeyPairSync('ec', { namedCurve: 'P-256' }), alg: 'ES256' as const },
  rsa: { id: 'jwt-rsa-client', keys: generateKeyPairSync('rsa', { modulusLength: 2048 }), alg: 'RS256' as const },
};

function keyRegisteredClient(id: string, publicKey: KeyObject, alg: 'ES256' | 'RS256'): ClientMetadata {
  return {
    client_id: id,
    token_endpoint_auth_method: 'private_key_jwt',
    token_endpoint_auth_signing_alg: alg,
    jwks: { keys: [{ ...publicKey.export({ format: 'jwk' }), alg, use: 'sig' }] },
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    scope: 'mcp:tools',
  };
}

async function whoami(transport: Transport): Promise<{ client_id: string; scopes: string[] }> {
  const c = new Client({ name: 'oauth-test', version: '1.0.0' });
  await c.connect(transport);
  try {
    const result = (await c.callTool({ name: 'whoami', arguments: {} })) as { content: Array<{ text: string }> };
    return JSON.parse(result.content[0].text) as { client_id: string; scopes: string[] };
  } finally {
    await c.close();
  }
}

describe('OAuth backend: client_credentials and bearer, no browser', () => {
  let env: OAuthEnv;
  let dir: string;
  let redactor: Redactor;
  let manager: BackendAuthManager;

  beforeAll(async () => {
    env = await startOAuthEnv({ extraClients: Object.values(SIGNERS).map((s) => keyRegisteredClient(s.id, s.keys.publicKey, s.alg)) });
    dir = mkdtempSync(join(tmpdir(), 'gw-tokens-'));
    redactor = new Redactor();
    manager = new BackendAuthManager({ tokensDir: dir, redactor });
  });

  afterAll(async () => {
    manager?.close();
    await env?.close();
  });

  const machine = (url: string, type: 'sse' | 'streamable-http' = 'streamable-http'): HttpBackendSpec => ({
    type,
    url,
    auth: { type: 'oauth', grant: 'client_credentials', client_id: MACHINE_CLIENT.id, client_secret: MACHINE_CLIENT.secret },
  });

  it('a pre-registered machine client gets its token at connect, before the first request', async () => {
    const unauthorizedBefore = env.server.stats.unauthorized;
    const me = await whoami(createBackendTransport('m2m', machine(env.server.mcpUrl), AS_PROCESS, manager));
    expect(me.client_id).toBe(MACHINE_CLIENT.id);
    expect(me.scopes).toEqual(['mcp:tools']);
    expect(env.server.stats.unauthorized).toBe(unauthorizedBefore);
    const file = tokenFile(dir, 'm2m');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = readTokenFile(file);
    expect(stored.tokens?.access_token).toBeTruthy();
    expect(stored.tokens?.refresh_token).toBeUndefined();
    expect(redactor.redact(stored.tokens?.access_token ?? '')).toBe(REDACTED);
    expect(env.as.registrations()).toHaveLength(0);
  });

  it('works over SSE as well', async () => {
    const me = await whoami(createBackendTransport('m2m-sse', machine(env.server.sseUrl, 'sse'), AS_PROCESS, manager));
    expect(me.client_id).toBe(MACHINE_CLIENT.id);
  });

  it('without a client_id the gateway registers a confidential machine client itself', async () => {
    const spec: HttpBackendSpec = { type: 'streamable-http', url: env.server.mcpUrl, auth: { type: 'oauth', grant: 'client_credentials' } };
    const me = await whoami(createBackendTransport('m2m-dcr', spec, AS_PROCESS, manager));
    const [registration] = env.as.registrations();
    expect(env.as.registrations()).toHaveLength(1);
    expect(registration.grant_types).toEqual(['client_credentials']);
    expect(registration.token_endpoint_auth_method).toBe('client_secret_basic');
    expect(me.client_id).toBe(registration.client_id);
    const secret = (readTokenFile(tokenFile(dir, 'm2m-dcr')).client as { client_secret?: string }).client_secret;
    expect(secret).toBeTruthy();
    expect(redactor.redact(secret ?? '')).toBe(REDACTED);
  });

  it('reauth of a machine backend fetches a new token without a browser (no authorization URL)', async () => {
    const before = readTokenFile(tokenFile(dir, 'm2m')).tokens?.access_token;
    const done = once(manager, 'reauthenticated', { signal: AbortSignal.timeout(10_000) });
    expect(await manager.startReauth('m2m', machine(env.server.mcpUrl))).toEqual({ authorization_url: null });
    expect(await done).toEqual(['m2m']);
    const after = readTokenFile(tokenFile(dir, 'm2m')).tokens?.access_token;
    expect(after).toBeTruthy();
    expect(after).not.toBe(before);
  });

  it('a client registered with its public key authenticates with a JWT signed by its private key (private_key_jwt)', async () => {
    // An EC key in PKCS#8 (ES256), and an RSA key in the older PKCS#1 PEM form (RS256): the algorithm comes from the key.
    const keys = {
      ec: SIGNERS.ec.keys.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      rsa: SIGNERS.rsa.keys.privateKey.export({ format: 'pem', type: 'pkcs1' }).toString(),
    };
    for (const kind of ['ec', 'rsa'] as const) {
      const spec: HttpBackendSpec = {
        type: 'streamable-http',
        url: env.server.mcpUrl,
        auth: { type: 'oauth', grant: 'client_credentials', client_id: SIGNERS[kind].id, private_key: keys[kind] },
      };
      const me = await whoami(createBackendTransport(`m2m-jwt-${kind}`, spec, AS_PROCESS, manager));
      expect(me).toEqual({ client_id: SIGNERS[kind].id, scopes: ['mcp:tools'] });
    }
    expect(env.as.registrations()).toHaveLength(1); // only the one of the dynamic-registration test above
  });

  it('private_key_jwt that cannot work is refused with the reason, before any request', () => {
    const pem = SIGNERS.ec.keys.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const spec = (auth: Record<string, unknown>): HttpBackendSpec => ({
      type: 'streamable-http',
      url: env.server.mcpUrl,
      auth: { type: 'oauth', grant: 'client_credentials', ...auth },
    });
    expect(() => createBackendTransport('jwt-no-id', spec({ private_key: pem }), AS_PROCESS, manager)).toThrow(/private_key needs auth\.client_id/);
    expect(() => createBackendTransport('jwt-no-key', spec({ client_id: 'x', token_endpoint_auth_method: 'private_key_jwt' }), AS_PROCESS, manager)).toThrow(
      /private_key_jwt needs auth\.private_key/,
    );
    expect(() => createBackendTransport('jwt-not-a-key', spec({ client_id: 'x', private_key: 'not a key at all' }), AS_PROCESS, manager)).toThrow(
      /not a PEM private key/,
    );
    const ed = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    expect(() => createBackendTransport('jwt-ed', spec({ client_id: 'x', private_key: ed }), AS_PROCESS, manager)).toThrow(/ed25519 key cannot sign/);
  });

  it('a wrong client secret is an error of its own, not a request for consent', async () => {
    const spec: HttpBackendSpec = {
      type: 'streamable-http',
      url: env.server.mcpUrl,
      auth: { type: 'oauth', grant: 'client_credentials', client_id: MACHINE_CLIENT.id, client_secret: 'wrong-secret-0123456789' },
    };
    const err = await whoami(createBackendTransport('m2m-bad', spec, AS_PROCESS, manager)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(isAuthorizationRequired(err)).toBe(false);
    expect((err as Error).message).toMatch(/invalid_client|client authentication failed/i);
  });

  it('auth.type bearer: the token is the Authorization header and wins over a configured one', async () => {
    const res = await fetch(`${env.as.issuer}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${MACHINE_CLIENT.id}:${MACHINE_CLIENT.secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp:tools', resource: env.server.mcpUrl }),
    });
    const { access_token } = (await res.json()) as { access_token: string };
    const spec: HttpBackendSpec = {
      type: 'streamable-http',
      url: env.server.mcpUrl,
      headers: { authorization: 'Bearer stale-configured-token', 'X-Trace': 'yes' },
      auth: { type: 'bearer', token: access_token },
    };
    expect(backendHeaders(spec)).toEqual({ 'X-Trace': 'yes', Authorization: `Bearer ${access_token}` });
    const me = await whoami(new NodeStreamableHttpClientTransport(new URL(spec.url), { headers: backendHeaders(spec) }));
    expect(me.client_id).toBe(MACHINE_CLIENT.id);
  });
});
