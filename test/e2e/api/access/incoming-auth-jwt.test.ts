/**
 * `incoming_auth.type: jwt` end to end: a real gateway whose clients present
 * JWTs minted by a real issuer (jose keys, its JWKS over HTTP). Every way a
 * token can be wrong is refused with 401 (or 403 for a missing scope), a
 * made-up `kid` flood reaches the identity provider at most once per
 * cooldown, a rotated key is picked up, an unreachable key set is a 503, and
 * the caller's identity (sub, roles) is what the policies and the audit see.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, UnsecuredJWT } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { freePort } from '../../../helpers/ports.js';
import { stdioFixture } from '../../../fixtures/fixture-backend.js';
import { waitFor } from '../../../helpers/wait.js';
import { signingKey, startJwtIssuer, type JwtIssuer, type SigningKey } from '../../../fixtures/jwt-issuer.js';
import { JwtVerifier } from '../../../../runtime/access/jwt-verifier.js';
import { remoteKeys } from '../../../../runtime/access/signing-keys.js';
import { BearerAuthError, GatewayError } from '../../../../schemas/errors.js';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

function post(url: string, token: string | undefined, extra: Record<string, string> = {}, body: unknown = INITIALIZE): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...extra,
    },
    body: JSON.stringify(body),
  });
}

describe('incoming_auth jwt', () => {
  let h: Harness;
  let idp: JwtIssuer;
  let rsa: SigningKey;
  let ec: SigningKey;
  let audience: string;
  const good = (claims: Record<string, unknown> = {}, key = rsa) =>
    idp.mint(key, { sub: 'alice', aud: audience, scope: 'mcp:tools openid', roles: ['dev'], ...claims });

  beforeAll(async () => {
    rsa = await signingKey('rsa-1', 'RS256');
    ec = await signingKey('ec-1', 'ES256');
    idp = await startJwtIssuer([rsa, ec]);
    const port = await freePort();
    audience = `http://127.0.0.1:${port}/mcp`;
    h = await startGateway({
      // The test reads GET /manage/v1/sessions without a token.
      server: { host: '127.0.0.1', port, management: { open: true } },
      backends: { github: stdioFixture(['--name', 'github', '--tools', 'create_issue,delete_repo']) },
      incoming_auth: { type: 'jwt', issuer: idp.issuer, jwks_uri: idp.jwksUri, audience, required_scopes: ['mcp:tools'] },
      authorization: {
        enabled: true,
        policies: [
          { effect: 'deny', roles: ['*'], resources: ['tool:*_delete*'] },
          { effect: 'allow', roles: ['dev'], resources: ['server:github'] },
        ],
      },
    });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await idp?.close();
  });

  it('accepts a valid token (RS256 and ES256) and makes its subject and roles the caller', async () => {
    for (const key of [rsa, ec]) {
      const res = await post(`${h.url}/mcp`, await good({}, key));
      expect(res.status, key.alg).toBe(200);
      await res.body?.cancel();
    }
    const client = new Client({ name: 'jwt-client', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${await good()}` } },
    });
    await client.connect(transport);
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('github_create_issue');
    expect(tools).not.toContain('github_delete_repo');
    expect((await client.callTool({ name: 'github_create_issue', arguments: {} })).content).toEqual([{ type: 'text', text: 'github:create_issue' }]);
    const sessions = (await (await fetch(`${h.url}/manage/v1/sessions`)).json()).sessions;
    expect(sessions.find((s: { id: string }) => s.id === transport.sessionId)).toMatchObject({ user_id: 'alice', roles: ['dev'] });
    await client.close();
    await h.gateway.audit.flush();
    const record = readFileSync(join(h.dir, 'audit.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((r) => r.target.capability_name === 'github_create_issue');
    expect(record.source).toMatchObject({ user_id: 'alice', roles: ['dev'] });
  });

  it('asks for a token with a challenge pointing at the metadata of the audience, with the scope', async () => {
    const res = await post(`${h.url}/mcp`, undefined);
    expect(res.status).toBe(401);
    const metadata = `${h.url}/.well-known/oauth-protected-resource/mcp`;
    expect(res.headers.get('www-authenticate')).toBe(`Bearer scope="mcp:tools", resource_metadata="${metadata}"`);
    expect(await (await fetch(metadata)).json()).toEqual({
      resource: audience,
      authorization_servers: [idp.issuer],
      scopes_supported: ['mcp:tools'],
      bearer_methods_supported: ['header'],
      resource_name: 'mcp-gateway',
    });
  });

  it('refuses every bad token with 401 invalid_token, saying why', async () => {
    const other = await signingKey('rsa-1', 'RS256');
    const now = Math.floor(Date.now() / 1000);
    const cases: Array<[string, string | Promise<string>, string]> = [
      ['malformed header', 'not a jwt', 'malformed token'],
      ['not a JWT at all', 'abc.def.ghi', 'malformed token'],
      ['bad signature (same kid, another key)', idp.mint(other, { sub: 'alice', aud: audience, scope: 'mcp:tools' }), 'bad signature'],
      ['alg none', new UnsecuredJWT({ iss: idp.issuer, sub: 'alice', aud: audience, exp: now + 300, scope: 'mcp:tools' }).encode(), 'algorithm not allowed'],
      [
        'HS256 signed with the public key',
        new SignJWT({ iss: idp.issuer, sub: 'alice', aud: audience, exp: now + 300, scope: 'mcp:tools' })
          .setProtectedHeader({ alg: 'HS256', kid: rsa.kid })
          .sign(new TextEncoder().encode(rsa.publicPem)),
        'algorithm not allowed',
      ],
      ['expired', good({ exp: now - 600, iat: now - 900 }), 'expired'],
      ['not yet valid', good({ nbf: now + 600 }), 'not yet valid'],
      ['wrong issuer', good({ iss: 'https://evil.test' }), 'wrong issuer'],
      ['wrong audience (a token for another resource)', good({ aud: 'https://other.example.com/mcp' }), 'wrong audience'],
      ['no exp', good({ exp: undefined }), 'no exp claim'],
      ['no subject', good({ sub: undefined }), 'no subject'],
    ];
    for (const [what, pending, why] of cases) {
      const res = await post(`${h.url}/mcp`, await pending);
      expect(res.status, what).toBe(401);
      expect(res.headers.get('www-authenticate'), what).toContain(`error="invalid_token", error_description="${why}"`);
      const body = await res.json();
      expect(body.error.message, what).toBe(
        `Unauthorized: the ${why === 'malformed token' && what === 'malformed header' ? 'bearer token is malformed' : `access token is not valid (${why})`}`,
      );
    }
  });

  it('refuses a valid token without a required scope with 403 insufficient_scope', async () => {
    const res = await post(`${h.url}/mcp`, await good({ scope: 'openid' }));
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", error_description="missing scope mcp:tools", scope="mcp:tools", resource_metadata="${h.url}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect((await res.json()).error.message).toBe('Forbidden: the access token lacks the scope mcp:tools');
    // `scp` as a list counts too.
    const scp = await post(`${h.url}/mcp`, await good({ scope: undefined, scp: ['mcp:tools'] }));
    expect(scp.status).toBe(200);
    await scp.body?.cancel();
  });

  it("refuses a session to another identity's valid token", async () => {
    const alice = await post(`${h.url}/mcp`, await good());
    const id = alice.headers.get('mcp-session-id')!;
    await alice.body?.cancel();
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    const headers = { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' };
    const bob = await post(`${h.url}/mcp`, await good({ sub: 'bob' }), headers, list);
    expect(bob.status).toBe(404);
    await bob.body?.cancel();
    const again = await post(`${h.url}/mcp`, await good(), headers, list);
    expect(again.status).toBe(200);
    await again.body?.cancel();
  });

  it('fetches the key set again for a made-up kid at most once per cooldown, however many arrive', async () => {
    const before = idp.fetches();
    const flood = await Promise.all(Array.from({ length: 40 }, (_, i) => good({}, { ...rsa, kid: `made-up-${i}` })));
    for (const token of flood) {
      const res = await post(`${h.url}/mcp`, token);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('error_description="unknown signing key"');
    }
    expect(idp.fetches() - before).toBeLessThanOrEqual(1);
  });

  it('never writes a token to the log or the audit trail', async () => {
    const token = await good();
    const res = await post(`${h.url}/mcp`, token);
    await res.body?.cancel();
    await post(`${h.url}/mcp`, `${token}x`).then((r) => r.body?.cancel());
    await h.gateway.audit.flush();
    const everything = [...h.logs, readFileSync(join(h.dir, 'audit.jsonl'), 'utf8')].join('\n');
    expect(everything).not.toContain(token.split('.')[2]);
    expect(everything).not.toContain(token.split('.')[1]);
  });
});

describe('JwtVerifier and its key set', () => {
  it('picks up a rotated key once the cooldown has passed', async () => {
    const first = await signingKey('k1');
    const second = await signingKey('k2');
    const idp = await startJwtIssuer([first]);
    const verifier = new JwtVerifier(
      { type: 'jwt', issuer: idp.issuer, audience: 'http://gw/mcp', jwks_uri: idp.jwksUri },
      remoteKeys(idp.jwksUri, { cooldownMs: 200 }),
    );
    try {
      expect(await verifier.identify(await idp.mint(first, { sub: 'a', aud: 'http://gw/mcp' }))).toMatchObject({ userId: 'a' });
      idp.publish([second]);
      const rotated = await idp.mint(second, { sub: 'b', aud: 'http://gw/mcp', roles: 'x y', realm_access: { roles: ['z'] } });
      // Within the cooldown the new kid is unknown; after it, the key set is fetched again and the token accepted.
      const identity = await waitFor(() => verifier.identify(rotated).catch(() => undefined), 'the rotated key to be accepted');
      expect(identity).toEqual({ type: 'jwt', userId: 'b', roles: ['x', 'y', 'z'] });
    } finally {
      await idp.close();
    }
  });

  it('takes a client_credentials token without sub by its client_id, and namespaced role claims as they are', async () => {
    const key = await signingKey('k');
    const idp = await startJwtIssuer([key]);
    const verifier = new JwtVerifier(
      { type: 'jwt', issuer: idp.issuer, audience: 'http://gw/mcp', jwks_uri: idp.jwksUri, roles_claim: 'https://example.com/roles' },
      remoteKeys(idp.jwksUri),
    );
    try {
      const token = await idp.mint(key, { client_id: 'ci-bot', aud: ['http://gw/mcp', 'other'], 'https://example.com/roles': ['ci'] });
      expect(await verifier.identify(token)).toEqual({ type: 'jwt', userId: 'ci-bot', roles: ['ci'] });
    } finally {
      await idp.close();
    }
  });

  it('answers 503 service_unavailable, not 401, when the key set cannot be fetched', async () => {
    const key = await signingKey('k');
    const idp = await startJwtIssuer([key]);
    const token = await idp.mint(key, { sub: 'a', aud: 'http://gw/mcp' });
    await idp.close();
    const verifier = new JwtVerifier({ type: 'jwt', issuer: idp.issuer, audience: 'http://gw/mcp', jwks_uri: idp.jwksUri }, remoteKeys(idp.jwksUri));
    const err = await verifier.identify(token).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).not.toBeInstanceOf(BearerAuthError);
    expect(err).toMatchObject({ code: 'service_unavailable', details: { reason: 'identity_provider_unreachable' } });
  });
});
