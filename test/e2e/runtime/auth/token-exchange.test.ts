/**
 * Token exchange on the caller's behalf (RFC 8693) against a real
 * authorization server (test/fixtures/token-exchange-server.ts): two users
 * get two tokens, each with the backend's audience and its own subject; a
 * refused exchange is a clear typed error naming the backend and the
 * issuer's code, and leaves other users served; the cache answers repeated
 * and concurrent calls with one exchange (counted at the server); an
 * expiring token is refreshed, or exchanged again without a refresh token;
 * the endpoint is found by discovery from the issuer.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TokenExchanger, type OnBehalfOf } from '../../../../runtime/auth/token-exchange.js';
import { TokenExchangeRefusedError, TokenUnavailableError } from '../../../../runtime/auth/errors.js';
import { httpStatusOf, toJsonRpcError } from '../../../../api/error-mapping.js';
import { startTokenExchangeServer, TOKEN_EXCHANGE_GRANT, type TokenExchangeServer } from '../../../fixtures/token-exchange-server.js';
import type { TokenExchangeSpec } from '../../../../schemas/config.js';

const GATEWAY = 'http://gateway.test/mcp';
const GITHUB = 'https://github-mcp.test';
const JIRA = 'https://jira-mcp.test';
const SECRET = 'gateway-client-secret-0123456789';

describe('token exchange (RFC 8693)', () => {
  let as: TokenExchangeServer;
  let clock = Date.now();
  const now = () => clock;

  beforeAll(async () => {
    as = await startTokenExchangeServer({ gatewayAudience: GATEWAY, audiences: [GITHUB, JIRA], clients: { gateway: SECRET }, exchangedTtlS: 120 });
  });
  afterAll(async () => {
    await as?.close();
  });
  afterEach(() => {
    clock = Date.now();
  });

  const spec = (extra: Partial<TokenExchangeSpec> = {}): TokenExchangeSpec => ({
    type: 'token_exchange',
    token_endpoint: as.tokenEndpoint,
    client_id: 'gateway',
    client_secret: SECRET,
    audience: GITHUB,
    scopes: ['repo', 'read:org'],
    ...extra,
  });
  const caller = async (userId: string): Promise<OnBehalfOf> => ({ type: 'oidc', userId, token: await as.userToken(userId) });

  it('gives two users two tokens, each with the backend as audience and the user as subject', async () => {
    const exchanger = new TokenExchanger({ now });
    const github = spec();
    const [alice, bob] = await Promise.all([caller('alice'), caller('bob')]);
    const [forAlice, forBob] = await Promise.all([exchanger.tokenFor('github', github, alice), exchanger.tokenFor('github', github, bob)]);
    expect(forAlice).not.toBe(forBob);
    expect(forAlice).not.toBe(alice.token);
    const a = await as.verify(forAlice, GITHUB);
    const b = await as.verify(forBob, GITHUB);
    expect(a).toMatchObject({ sub: 'alice', aud: GITHUB, act: { sub: 'gateway' }, scope: 'repo read:org' });
    expect(b).toMatchObject({ sub: 'bob', aud: GITHUB });
    // Not a token for the gateway, nor for another backend.
    await expect(as.verify(forAlice, GATEWAY)).rejects.toThrow(/aud/);
    await expect(as.verify(forAlice, JIRA)).rejects.toThrow(/aud/);
  });

  it('keeps a token per identity and backend: repeated and concurrent calls make one exchange', async () => {
    const exchanger = new TokenExchanger({ now });
    const github = spec();
    const carol = await caller('carol');
    const before = as.calls(TOKEN_EXCHANGE_GRANT);
    const burst = await Promise.all(Array.from({ length: 20 }, () => exchanger.tokenFor('github', github, carol)));
    expect(new Set(burst).size).toBe(1);
    expect(as.calls(TOKEN_EXCHANGE_GRANT) - before).toBe(1);
    for (let i = 0; i < 5; i++) expect(await exchanger.tokenFor('github', github, carol)).toBe(burst[0]);
    expect(as.calls(TOKEN_EXCHANGE_GRANT) - before).toBe(1);
    // Another backend is another key.
    const jira = await exchanger.tokenFor('jira', spec({ audience: JIRA }), carol);
    expect(await as.verify(jira, JIRA)).toMatchObject({ sub: 'carol' });
    expect(as.calls(TOKEN_EXCHANGE_GRANT) - before).toBe(2);
    // The same user id under another kind of identity is another caller.
    await exchanger.tokenFor('github', github, { ...carol, type: 'jwt' });
    expect(as.calls(TOKEN_EXCHANGE_GRANT) - before).toBe(3);
  });

  it('exchanges again shortly before the token expires (no refresh token given)', async () => {
    const exchanger = new TokenExchanger({ now });
    const github = spec();
    const dave = await caller('dave');
    const before = as.calls(TOKEN_EXCHANGE_GRANT);
    const first = await exchanger.tokenFor('github', github, dave);
    clock += 59_000; // 120 s tokens are renewed 60 s before they expire
    expect(await exchanger.tokenFor('github', github, dave)).toBe(first);
    clock += 2_000;
    const second = await exchanger.tokenFor('github', github, dave);
    expect(second).not.toBe(first);
    expect(as.calls(TOKEN_EXCHANGE_GRANT) - before).toBe(2);
  });

  it('refuses with a typed error naming the backend and the issuer code, and keeps serving other users', async () => {
    const exchanger = new TokenExchanger({ now });
    const github = spec();
    as.refuseSubject('mallory');
    const mallory = await caller('mallory');
    const err = await exchanger.tokenFor('github', github, mallory).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TokenExchangeRefusedError);
    const refused = err as TokenExchangeRefusedError;
    expect(refused.message).toBe(
      `Backend 'github': the authorization server at ${as.tokenEndpoint} refused a token for this caller (access_denied: mallory may not use ${GITHUB})`,
    );
    expect(refused.details).toEqual({
      backend: 'github',
      reason: 'token_exchange_refused',
      issuer_error: 'access_denied',
      issuer_error_description: `mallory may not use ${GITHUB}`,
    });
    expect(refused.message).not.toContain(mallory.token);
    expect(httpStatusOf(refused)).toBe(403);
    const rpc = toJsonRpcError(refused);
    expect(rpc.code).toBe(-32603);
    expect(rpc.data).toMatchObject({ error: 'token_exchange_refused', backend: 'github', issuer_error: 'access_denied' });
    // Other users of the same backend are still served.
    expect(await as.verify(await exchanger.tokenFor('github', github, await caller('erin')), GITHUB)).toMatchObject({ sub: 'erin' });
    // A refusal is not cached: the next call asks again.
    const before = as.calls(TOKEN_EXCHANGE_GRANT);
    await expect(exchanger.tokenFor('github', github, mallory)).rejects.toBeInstanceOf(TokenExchangeRefusedError);
    expect(as.calls(TOKEN_EXCHANGE_GRANT) - before).toBe(1);
  });

  it('names the issuer code of other refusals: an audience it does not serve, a wrong client secret', async () => {
    const exchanger = new TokenExchanger({ now });
    const frank = await caller('frank');
    await expect(exchanger.tokenFor('wiki', spec({ audience: 'https://wiki.test' }), frank)).rejects.toMatchObject({
      issuerError: 'invalid_target',
      message: expect.stringContaining("Backend 'wiki'"),
    });
    const wrong = exchanger.tokenFor('github', spec({ client_secret: 'not-the-secret-0123456789' }), frank);
    await expect(wrong).rejects.toMatchObject({ issuerError: 'invalid_client' });
    await expect(wrong).rejects.not.toThrow(/not-the-secret/);
  });

  it('finds the token endpoint from the issuer, and authenticates with client_secret_post when told', async () => {
    const exchanger = new TokenExchanger({ now });
    const byDiscovery = spec({ token_endpoint: undefined, issuer: as.issuer, token_endpoint_auth_method: 'client_secret_post' });
    const grace = await caller('grace');
    const token = await exchanger.tokenFor('github', byDiscovery, grace);
    expect(await as.verify(token, GITHUB)).toMatchObject({ sub: 'grace' });
    const sent = as.requests().at(-1)!;
    expect(sent).toMatchObject({ grant_type: TOKEN_EXCHANGE_GRANT, client_id: 'gateway', audience: GITHUB, scope: 'repo read:org' });
  });

  it('says the token endpoint is unavailable when nothing answers there', async () => {
    const exchanger = new TokenExchanger({ now, timeoutMs: 2000 });
    const err = await exchanger.tokenFor('github', spec({ token_endpoint: 'http://127.0.0.1:9/token' }), await caller('heidi')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TokenUnavailableError);
    expect(httpStatusOf(err)).toBe(503);
    expect((err as Error).message).toMatch(/^Backend 'github': no valid access token \(the token endpoint http:\/\/127\.0\.0\.1:9\/token did not answer/);
  });
});

describe('token exchange with refresh tokens', () => {
  let as: TokenExchangeServer;
  beforeAll(async () => {
    as = await startTokenExchangeServer({
      gatewayAudience: GATEWAY,
      audiences: [GITHUB],
      clients: { gateway: SECRET },
      exchangedTtlS: 120,
      refreshTokens: true,
    });
  });
  afterAll(async () => {
    await as?.close();
  });

  it('refreshes an expiring token with its refresh token instead of exchanging again', async () => {
    let clock = Date.now();
    const exchanger = new TokenExchanger({ now: () => clock });
    const github: TokenExchangeSpec = {
      type: 'token_exchange',
      token_endpoint: as.tokenEndpoint,
      client_id: 'gateway',
      client_secret: SECRET,
      audience: GITHUB,
    };
    const ivan: OnBehalfOf = { type: 'oidc', userId: 'ivan', token: await as.userToken('ivan') };
    const first = await exchanger.tokenFor('github', github, ivan);
    clock += 61_000;
    const second = await exchanger.tokenFor('github', github, ivan);
    expect(second).not.toBe(first);
    expect(await as.verify(second, GITHUB)).toMatchObject({ sub: 'ivan', aud: GITHUB });
    expect(as.calls(TOKEN_EXCHANGE_GRANT)).toBe(1);
    expect(as.calls('refresh_token')).toBe(1);
    // The refresh request carried the refresh token, not the user's own token.
    expect(Object.values(as.requests().at(-1)!)).not.toContain(ivan.token);
  });
});
