/**
 * Issue 34, item 2 end to end: a backend with `auth.on_behalf_of: {type:
 * user_oauth}` behind a real gateway (client authentication `jwt`), its own
 * real authorization server (oidc-provider: PKCE, a pre-registered native
 * client, JWT access tokens for the backend as resource) and an HTTP MCP
 * backend that verifies each call's token (signature, issuer, its own
 * audience) and says whose it is. Users sign in through headless Chromium
 * following the URL the gateway hands them.
 *
 * The tests run in order, as a gateway's life does: bob and alice are asked
 * to sign in; alice signs in, her call carries her token and bob is still
 * asked; tokens are sealed at rest; the management API and the CLI start a
 * user's sign-in; a revoked sign-in makes the next call ask again.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { startTokenExchangeServer, type TokenExchangeServer } from '../../../fixtures/token-exchange-server.js';
import { startAuthorizationServer, type RunningAuthorizationServer } from '../../../fixtures/oauth-authorization-server.js';
import { authorizeInBrowser, launchChromium, type HeadlessBrowser } from '../../../helpers/chromium.js';
import { CLIENT_BIN, runBin } from '../../../helpers/cli-run.js';
import { repoRoot } from '../../../fixtures/spawn.js';
import { startJwtWhoamiBackend, type WhoamiBackend } from '../../../fixtures/whoami-backend.js';
import { modernToolCall } from '../../../helpers/modern-call.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const GATEWAY_AUD = 'http://gateway.test/mcp';
const MGMT = 'per-user-consent-management-token-0123456789';
const CLIENT = { id: 'gateway-per-user', secret: 'gateway-per-user-secret-0123456789' };

type VerifyingBackend = WhoamiBackend;

/**
 * The backend names its authorization server (RFC 9728); its one tool
 * answers with the verified claims of the token its call carried: signed by
 * that server, for this backend (audience).
 */
const startVerifyingBackend = (as: RunningAuthorizationServer): Promise<VerifyingBackend> => startJwtWhoamiBackend(as.issuer);

/** What a call that needs a sign-in rejects with: the JSON-RPC error's message and data. */
async function signInAsked(client: Client): Promise<{ message: string; data: Record<string, unknown> }> {
  try {
    await client.callTool({ name: 'records_whoami' });
  } catch (err) {
    const e = err as { message: string; data?: Record<string, unknown> };
    return { message: e.message, data: e.data ?? {} };
  }
  throw new Error('the call succeeded although the user was expected to be asked to sign in');
}

const text = (r: unknown) => ((r as { content: Array<{ text: string }> }).content[0]?.text ?? '') as string;

/** The loopback callback the authorization URL sends the browser back to. */
const callbackOf = (authorizationUrl: string) => new URL(authorizationUrl).searchParams.get('redirect_uri')!;

interface World {
  idp: TokenExchangeServer;
  as: RunningAuthorizationServer;
  backend: VerifyingBackend;
  browser: HeadlessBrowser;
  h: Harness;
}

/**
 * Who the callers are (`incoming_auth`: users' JWTs for the gateway), the
 * backend's own authorization server with the gateway registered as a
 * native client (any loopback port), the backend, a browser, and the
 * gateway with the backend acting for each user.
 */
async function startWorld(tokensDir: string, accessTokenTtlS?: number): Promise<World> {
  const idp = await startTokenExchangeServer({ gatewayAudience: GATEWAY_AUD, audiences: [], clients: {} });
  const as = await startAuthorizationServer({
    accessTokenFormat: 'jwt',
    accessTokenTtlS,
    clients: [
      {
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        application_type: 'native',
        redirect_uris: ['http://127.0.0.1/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
    ],
  });
  const backend = await startVerifyingBackend(as);
  as.allowResource(backend.url);
  const browser = await launchChromium();
  const h = await startGateway(
    {
      server: { host: '127.0.0.1', port: 0, management: { token: MGMT } },
      incoming_auth: { type: 'jwt', issuer: idp.issuer, jwks_uri: `${idp.issuer}/jwks`, audience: GATEWAY_AUD },
      backends: {
        records: {
          type: 'streamable-http',
          url: backend.url,
          auth: { on_behalf_of: { type: 'user_oauth', issuer: as.issuer, client_id: CLIENT.id, client_secret: CLIENT.secret, scopes: ['mcp:tools'] } },
        },
      },
    },
    { userTokensDir: tokensDir },
  );
  return { idp, as, backend, browser, h };
}

describe('a backend acting for each user through per-user sign-in (user_oauth)', () => {
  let idp: TokenExchangeServer;
  let as: RunningAuthorizationServer;
  let backend: VerifyingBackend;
  let browser: HeadlessBrowser;
  let h: Harness;
  const clients: Client[] = [];
  const tokensDir = mkdtempSync(join(tmpdir(), 'gw-user-tokens-'));

  beforeAll(async () => {
    ({ idp, as, backend, browser, h } = await startWorld(tokensDir));
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await h?.close();
    await browser?.close();
    await backend?.close();
    await as?.close();
    await idp?.close();
  });

  async function clientOf(user: string): Promise<Client> {
    const token = await idp.userToken(user);
    const client = new Client({ name: 'per-user-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    clients.push(client);
    return client;
  }
  const manage = (method: string, path: string) => fetch(`${h.url}/manage/v1${path}`, { method, headers: { authorization: `Bearer ${MGMT}` } });
  const signedIn = (user: string) => h.waitForEvent((e) => e.stage === 'reauthenticated' && e.backend === 'records' && e.details.user === user);

  let bob: Client;
  let alice: Client;

  it('a user who has not signed in is asked to, with the sign-in URL and the command; the backend stays Ready', async () => {
    bob = await clientOf('bob');
    const asked = await signInAsked(bob);
    expect(asked.data).toMatchObject({ error: 'user_authorization_required', reason: 'user_authorization_required', backend: 'records', user: 'bob' });
    const url = asked.data.authorization_url as string;
    expect(url.startsWith(`${as.issuer}/auth?`)).toBe(true);
    const params = new URL(url).searchParams;
    expect(params.get('client_id')).toBe(CLIENT.id);
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('resource')).toBe(backend.url);
    expect(asked.message).toContain(url);
    expect(asked.message).toContain('gateway-client reauth records --user bob');
    // Asking again joins the pending sign-in: the same URL, one event.
    expect((await signInAsked(bob)).data.authorization_url).toBe(url);
    const event = await h.waitForEvent((e) => e.stage === 'authorization_required' && e.details.user === 'bob');
    expect(event.details.authorization_url).toBe(url);
    expect(h.gateway.events.list().filter((e) => e.stage === 'authorization_required' && e.details.user === 'bob')).toHaveLength(1);
    const records = (await (await manage('GET', '/backends')).json()) as { backends: Array<{ name: string; phase: string }> };
    expect(records.backends.find((b) => b.name === 'records')?.phase).toBe('Ready');
    expect(backend.seen).toEqual([]);
  });

  it('a user signs in through the browser at that URL; then her call carries her own token, and the other user is still asked', async () => {
    alice = await clientOf('alice');
    const url = (await signInAsked(alice)).data.authorization_url as string;
    const done = signedIn('alice');
    const page = await authorizeInBrowser(browser, url, callbackOf(url), { login: 'alice' });
    expect(page.status).toBe(200);
    await done;
    expect(JSON.parse(text(await alice.callTool({ name: 'records_whoami' })))).toEqual({ sub: 'alice', aud: backend.url });
    const asked = await signInAsked(bob);
    expect(asked.data.reason).toBe('user_authorization_required');
    // Her second call uses the kept token: no new sign-in, the same token.
    expect(JSON.parse(text(await alice.callTool({ name: 'records_whoami' }))).sub).toBe('alice');
    expect(new Set(backend.seen).size).toBe(1);
  });

  it('tokens are sealed at rest: the stored file holds no token in the clear', () => {
    const dir = join(tokensDir, 'records');
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    expect(files).toHaveLength(1);
    const stored = readFileSync(join(dir, files[0]!), 'utf8');
    expect(JSON.parse(stored)).toMatchObject({ version: 1, iv: expect.any(String), tag: expect.any(String), data: expect.any(String) });
    expect(stored).not.toContain(backend.seen[0]!);
    expect(stored).not.toContain('alice');
    expect(h.logs.join('\n')).not.toContain(backend.seen[0]!);
  });

  it('a caller with no user id (the management API) is refused before the backend sees anything', async () => {
    const before = backend.seen.length;
    const res = await fetch(`${h.url}/manage/v1/tools/call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${MGMT}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'records_whoami', arguments: {} }),
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: 'user_authorization_required', details: { reason: 'no_user', backend: 'records' } });
    expect(backend.seen.length).toBe(before);
  });

  it("POST /reauth/{name}?user= starts that user's sign-in; a backend that does not act for each user says so", async () => {
    const res = await manage('POST', '/reauth/records?user=carol');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { reauth_initiated: boolean; authorization_url: string };
    expect(body.reauth_initiated).toBe(true);
    expect(body.authorization_url.startsWith(`${as.issuer}/auth?`)).toBe(true);
    // carol's call joins it: the same URL.
    expect((await signInAsked(await clientOf('carol'))).data.authorization_url).toBe(body.authorization_url);
    expect((await manage('POST', '/reauth/nope?user=carol')).status).toBe(404);
  });

  it('gateway-client reauth NAME --user ID prints the URL and waits until that user signed in', async () => {
    const child = spawn(process.execPath, [CLIENT_BIN, '-s', h.url, 'reauth', 'records', '--user', 'dave', '--no-browser'], {
      cwd: repoRoot(),
      env: { ...process.env, GATEWAY_MGMT_TOKEN: MGMT },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const url = await new Promise<string>((resolve, reject) => {
      const look = () => {
        const m = /(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)/.exec(out);
        if (m) resolve(m[1]!);
      };
      child.stdout.on('data', look);
      child.stderr.on('data', look);
      child.once('exit', () => reject(new Error(`gateway-client exited before printing a URL:\n${out}`)));
    });
    expect(out).toContain('as user dave');
    // Another person: another browser (alice's session at the authorization server stays in hers).
    const davesBrowser = await launchChromium();
    try {
      await authorizeInBrowser(davesBrowser, url, callbackOf(url), { login: 'dave' });
    } finally {
      await davesBrowser.close();
    }
    expect(await exited, out).toBe(0);
    expect(JSON.parse(text(await (await clientOf('dave')).callTool({ name: 'records_whoami' })))).toEqual({ sub: 'dave', aud: backend.url });
  });

  it("DELETE /backends/{name}/users/{id}/token revokes a user's sign-in: 204, then 404; the user's next call asks again", async () => {
    expect((await manage('DELETE', '/backends/records/users/alice/token')).status).toBe(204);
    const again = await manage('DELETE', '/backends/records/users/alice/token');
    expect(again.status).toBe(404);
    expect(await again.json()).toMatchObject({ error: 'not_found', details: { backend: 'records', user: 'alice' } });
    expect((await manage('DELETE', '/backends/nope/users/alice/token')).status).toBe(404);
    const asked = await signInAsked(alice);
    expect(asked.data).toMatchObject({ reason: 'user_authorization_required', user: 'alice' });
    expect(asked.data.authorization_url).toMatch(new RegExp(`^${as.issuer}/auth\\?`));
    // dave is still served.
    expect(JSON.parse(text(await (await clientOf('dave')).callTool({ name: 'records_whoami' }))).sub).toBe('dave');
  });

  it('gateway-client revoke NAME --user ID: exit 0, then 1 when nothing is left to revoke', async () => {
    const env = { GATEWAY_MGMT_TOKEN: MGMT };
    const first = await runBin(CLIENT_BIN, ['-s', h.url, '-o', 'table', 'revoke', 'records', '--user', 'dave'], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain("dave's sign-in to records is revoked");
    const second = await runBin(CLIENT_BIN, ['-s', h.url, '-o', 'table', 'revoke', 'records', '--user', 'dave'], { env });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('holds no token');
  });

  /** A user signing in in a browser of their own (the shared one holds alice's session at the authorization server). */
  async function signInAs(user: string, url: string): Promise<void> {
    const own = await launchChromium();
    try {
      await authorizeInBrowser(own, url, callbackOf(url), { login: user });
    } finally {
      await own.close();
    }
  }

  it('a 2026-07-28 client that can show a URL is sent the sign-in as input_required; after signing in, its repeat completes the call', async () => {
    const token = await idp.userToken('gina');
    const params = { name: 'records_whoami', arguments: {} };
    const capabilities = { elicitation: { form: {}, url: {} } };
    const first = await modernToolCall(h.url, params, { token, capabilities });
    expect(first.result).toMatchObject({ resultType: 'input_required', inputRequests: { sign_in: { method: 'elicitation/create', params: { mode: 'url' } } } });
    const url = first.result!.inputRequests.sign_in.params.url as string;
    expect(url.startsWith(`${as.issuer}/auth?`)).toBe(true);
    // Repeated before signing in: asked again.
    const early = await modernToolCall(
      h.url,
      { ...params, inputResponses: { sign_in: { action: 'accept' } }, requestState: first.result!.requestState },
      { token, capabilities },
    );
    expect(early.result?.resultType).toBe('input_required');
    const done = signedIn('gina');
    await signInAs('gina', url);
    await done;
    const repeat = await modernToolCall(
      h.url,
      { ...params, inputResponses: { sign_in: { action: 'accept' } }, requestState: early.result!.requestState },
      { token, capabilities },
    );
    expect(JSON.parse(text(repeat.result))).toEqual({ sub: 'gina', aud: backend.url });
    // A client that cannot show a URL gets the error naming it.
    const formOnly = await modernToolCall(h.url, params, { token: await idp.userToken('ivan'), capabilities: { elicitation: {} } });
    expect(formOnly.error?.data).toMatchObject({ reason: 'user_authorization_required', user: 'ivan' });
  });

  it('a 2025-11-25 client that can show a URL is asked on its session; the call completes once the user has signed in', async () => {
    const token = await idp.userToken('hank');
    const client = new Client({ name: 'per-user-url', version: '1.0.0' }, { capabilities: { elicitation: { form: {}, url: {} } } });
    const browsing: Array<Promise<void>> = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const params = request.params as { mode?: string; url?: string };
      expect(params.mode).toBe('url');
      // The user opens the page; the client answers at once, as URL mode does.
      browsing.push(signInAs('hank', params.url!));
      return { action: 'accept' };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    clients.push(client);
    const answer = await client.callTool({ name: 'records_whoami' }, undefined, { timeout: 60_000 });
    expect(JSON.parse(text(answer))).toEqual({ sub: 'hank', aud: backend.url });
    expect(browsing).toHaveLength(1);
    await Promise.all(browsing);
  });

  it("a backend's 401 for a user's token drops it: that user is asked to sign in again as at first, an event says so, others are served", async () => {
    const hank = await clientOf('hank');
    expect(JSON.parse(text(await hank.callTool({ name: 'records_whoami' }))).sub).toBe('hank');
    const hanks = backend.seen.at(-1)!;
    backend.refuse(hanks);
    const asked = await signInAsked(hank);
    expect(asked.data).toMatchObject({ error: 'user_authorization_required', reason: 'user_authorization_required', user: 'hank' });
    expect(asked.data.authorization_url).toMatch(new RegExp(`^${as.issuer}/auth\\?`));
    const event = await h.waitForEvent((e) => e.stage === 'token_refused' && e.details.user === 'hank');
    expect(event.message).not.toContain(hanks);
    await h.waitForEvent((e) => e.stage === 'authorization_required' && e.details.user === 'hank');
    // Refused once: the dropped token is not sent again.
    expect(backend.refusals()).toBe(1);
    expect((await signInAsked(hank)).data.authorization_url).toBe(asked.data.authorization_url);
    expect(backend.refusals()).toBe(1);
    // gina, who signed in before, is served with her own token.
    const gina = await modernToolCall(h.url, { name: 'records_whoami', arguments: {} }, { token: await idp.userToken('gina') });
    expect(JSON.parse(text(gina.result))).toEqual({ sub: 'gina', aud: backend.url });
  });
});

describe("a user's token is refreshed before it expires, with no new sign-in (user_oauth)", () => {
  let idp: TokenExchangeServer;
  let as: RunningAuthorizationServer;
  let backend: VerifyingBackend;
  let browser: HeadlessBrowser;
  let h: Harness;
  let client: Client;

  beforeAll(async () => {
    // Access tokens live 2 s: they are renewed (at half their life) by the refresh token.
    ({ idp, as, backend, browser, h } = await startWorld(mkdtempSync(join(tmpdir(), 'gw-user-tokens-')), 2));
  });
  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await h?.close();
    await browser?.close();
    await backend?.close();
    await as?.close();
    await idp?.close();
  });

  it('calls keep succeeding across expiries, each with a valid token of the same user', async () => {
    const token = await idp.userToken('erin');
    client = new Client({ name: 'per-user-refresh', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    const url = (await signInAsked(client)).data.authorization_url as string;
    const done = h.waitForEvent((e) => e.stage === 'reauthenticated' && e.details.user === 'erin');
    await authorizeInBrowser(browser, url, callbackOf(url), { login: 'erin' });
    await done;
    // Until the backend has seen a second token, every call goes through (the backend verifies each one's expiry): polled, each call must succeed.
    const deadline = Date.now() + 15_000;
    while (new Set(backend.seen).size < 2) {
      expect(Date.now(), 'no renewed token within 15 s').toBeLessThan(deadline);
      const answer = text(await client.callTool({ name: 'records_whoami' }));
      expect(answer.startsWith('{'), answer).toBe(true);
      expect(JSON.parse(answer)).toEqual({ sub: 'erin', aud: backend.url });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(JSON.parse(text(await client.callTool({ name: 'records_whoami' })))).toEqual({ sub: 'erin', aud: backend.url });
    // Renewed, not signed in again: one sign-in asked for, ever.
    expect(h.gateway.events.list().filter((e) => e.stage === 'authorization_required' && e.details.user === 'erin')).toHaveLength(1);
  });
});
