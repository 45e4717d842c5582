/**
 * Issue 34, item 1 end to end: a backend with `auth.on_behalf_of: {type:
 * token_exchange}` behind a real gateway (client authentication `jwt`), a
 * real authorization server that exchanges tokens (RFC 8693,
 * test/fixtures/token-exchange-server.ts) and an HTTP MCP backend that
 * verifies the token each call brings (signature, issuer, its own audience)
 * and says whose it is. Two users call the same tool over one backend
 * connection: each call carries that user's exchanged token, never the
 * user's own token; an exchange the issuer refuses answers that caller with
 * `token_exchange_refused` and leaves the other served; a caller with no
 * token of its own (the management API) is refused before the backend sees
 * anything. The audit record names whom each backend call was made as.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startWhoamiBackend, type WhoamiBackend } from '../../../fixtures/whoami-backend.js';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { startTokenExchangeServer, type TokenExchangeServer } from '../../../fixtures/token-exchange-server.js';

const GATEWAY_AUD = 'http://gateway.test/mcp';
const BACKEND_AUD = 'https://records-mcp.test';
const SECRET = 'gateway-exchange-secret-0123456789';
const MGMT = 'acting-for-the-caller-management-token-0123456789';

/** The backend: its one tool answers with the claims of the token its call carried, verified for its audience. */
const startVerifyingBackend = (as: TokenExchangeServer): Promise<WhoamiBackend> =>
  startWhoamiBackend(async (token) => {
    const claims = await as.verify(token, BACKEND_AUD);
    return { sub: claims.sub, aud: claims.aud, act: claims.act };
  });

describe('a backend acting for each caller (token exchange)', () => {
  let as: TokenExchangeServer;
  let backend: WhoamiBackend;
  let h: Harness;
  const clients: Client[] = [];

  beforeAll(async () => {
    as = await startTokenExchangeServer({ gatewayAudience: GATEWAY_AUD, audiences: [BACKEND_AUD], clients: { gateway: SECRET } });
    backend = await startVerifyingBackend(as);
    h = await startGateway({
      server: { host: '127.0.0.1', port: 0, management: { token: MGMT } },
      incoming_auth: { type: 'jwt', issuer: as.issuer, jwks_uri: `${as.issuer}/jwks`, audience: GATEWAY_AUD },
      backends: {
        records: {
          type: 'streamable-http',
          url: backend.url,
          auth: {
            on_behalf_of: {
              type: 'token_exchange',
              token_endpoint: as.tokenEndpoint,
              client_id: 'gateway',
              client_secret: SECRET,
              audience: BACKEND_AUD,
              scopes: ['read'],
            },
          },
        },
      },
    });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await h?.close();
    await backend?.close();
    await as?.close();
  });

  async function clientOf(userToken: string): Promise<Client> {
    const client = new Client({ name: 'acting-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${userToken}` } } }));
    clients.push(client);
    return client;
  }
  const text = (r: unknown) => ((r as { content: Array<{ text: string }> }).content[0]?.text ?? '') as string;

  it("two users call the same tool; each call carries that user's exchanged token, never the user's own", async () => {
    const [aliceToken, bobToken] = await Promise.all([as.userToken('alice'), as.userToken('bob')]);
    const [alice, bob] = await Promise.all([clientOf(aliceToken), clientOf(bobToken)]);
    const [a, b] = await Promise.all([alice.callTool({ name: 'records_whoami' }), bob.callTool({ name: 'records_whoami' })]);
    expect(JSON.parse(text(a))).toEqual({ sub: 'alice', aud: BACKEND_AUD, act: { sub: 'gateway' } });
    expect(JSON.parse(text(b))).toEqual({ sub: 'bob', aud: BACKEND_AUD, act: { sub: 'gateway' } });
    expect(backend.seen).not.toContain(aliceToken);
    expect(backend.seen).not.toContain(bobToken);
    // Cached per identity and backend: a second call of alice's makes no new exchange.
    const exchanges = as.calls('urn:ietf:params:oauth:grant-type:token-exchange');
    expect(JSON.parse(text(await alice.callTool({ name: 'records_whoami' }))).sub).toBe('alice');
    expect(as.calls('urn:ietf:params:oauth:grant-type:token-exchange')).toBe(exchanges);
  });

  it('the audit record names whom each backend call was made as, and how; no token is in it', async () => {
    const res = await fetch(`${h.url}/manage/v1/audit?tool=records_whoami&user=bob`, { headers: { authorization: `Bearer ${MGMT}` } });
    const { records } = (await res.json()) as { records: Array<{ target: Record<string, unknown> }> };
    expect(records.length).toBeGreaterThan(0);
    expect(records.at(-1)!.target).toMatchObject({ backend: 'records', acting_as: { user_id: 'bob', via: 'token_exchange' } });
    expect(JSON.stringify(records)).not.toMatch(/eyJ/);
  });

  it('an exchange the issuer refuses fails that caller only, with the reason; the other is still served', async () => {
    const [malloryToken, carolToken] = await Promise.all([as.userToken('mallory'), as.userToken('carol')]);
    as.refuseSubject('mallory');
    const [mallory, carol] = await Promise.all([clientOf(malloryToken), clientOf(carolToken)]);
    await expect(mallory.callTool({ name: 'records_whoami' })).rejects.toThrow(/refused a token for this caller \(access_denied/);
    expect(JSON.parse(text(await carol.callTool({ name: 'records_whoami' }))).sub).toBe('carol');
  });

  it('a caller with no token of its own (the management API) is refused before the backend sees anything', async () => {
    const before = backend.seen.length;
    const res = await fetch(`${h.url}/manage/v1/tools/call`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${MGMT}` },
      body: JSON.stringify({ tool: 'records_whoami', arguments: {} }),
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: 'token_exchange_refused', details: { backend: 'records', reason: 'no_caller_token' } });
    expect(backend.seen.length).toBe(before);
  });
});
