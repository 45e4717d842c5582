/**
 * Issue 34: a user's sign-in to a backend that acts for each user comes back
 * to the gateway itself (`server.public_url`: `GET /oauth/callback` beside
 * /mcp), not to a loopback listener on the gateway's machine, so a browser
 * anywhere can finish it; and with `sessions.store: redis` whichever replica
 * the browser reaches finishes it. The user is handed the gateway's consent
 * page (`/oauth/start/<id>`), which names the user and gives the browser the
 * flow's cookie; a callback without it (the authorization server's URL
 * opened elsewhere) is refused and leaves the flow pending. Real parts: oidc-provider (the backend's
 * authorization server, the gateway a pre-registered web client with the
 * public callback), a backend that verifies each call's JWT, headless
 * Chromium, and for the cluster two `gateway server` processes over a
 * redis-server of the test's own.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { startTokenExchangeServer, type TokenExchangeServer } from '../../../fixtures/token-exchange-server.js';
import { startAuthorizationServer, type RunningAuthorizationServer } from '../../../fixtures/oauth-authorization-server.js';
import { authorizeInBrowser, launchChromium, type HeadlessBrowser } from '../../../helpers/chromium.js';
import { startJwtWhoamiBackend, type WhoamiBackend } from '../../../fixtures/whoami-backend.js';
import { freePort } from '../../../helpers/ports.js';
import { Cluster } from '../../../helpers/cluster.js';
import { RedisServer } from '../../../helpers/redis-server.js';

const GATEWAY_AUD = 'http://gateway.test/mcp';
const MGMT = 'sign-in-callback-management-token-0123456789';
const CLIENT = { id: 'gateway-web', secret: 'gateway-web-secret-0123456789' };

const text = (r: unknown) => ((r as { content: Array<{ text: string }> }).content[0]?.text ?? '') as string;

/** The sign-in URL a call that needs one is refused with. */
async function signInUrl(client: Client): Promise<string> {
  try {
    await client.callTool({ name: 'records_whoami' });
  } catch (err) {
    const url = (err as { data?: { authorization_url?: string } }).data?.authorization_url;
    if (url) return url;
    throw err;
  }
  throw new Error('the call succeeded although the user was expected to be asked to sign in');
}

/** The sign-in's consent page URL: `<public_url>/oauth/start/<id>`, no `state` in it. */
function expectStartPage(url: string, publicUrl: string): void {
  expect(url.startsWith(`${publicUrl}/oauth/start/`), url).toBe(true);
  expect(new URL(url).search).toBe('');
  expect(new URL(url).pathname.split('/').pop()).toMatch(/^[A-Za-z0-9_-]{43}$/);
}

/**
 * Passes the consent page without a browser (as a user who then copies the
 * authorization server's URL elsewhere would): its anti-CSRF cookie and
 * token, then the POST. Answers the 303's target and the flow's cookie.
 */
async function consentByHand(startUrl: string): Promise<{ location: string; cookie: string }> {
  const page = await fetch(startUrl);
  expect(page.status).toBe(200);
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  const csrfCookie = page.headers.get('set-cookie')?.split(';')[0];
  const res = await fetch(startUrl, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: csrfCookie ?? '', origin: new URL(startUrl).origin },
    body: new URLSearchParams({ csrf: csrf ?? '' }).toString(),
  });
  expect(res.status, await res.clone().text()).toBe(303);
  return { location: res.headers.get('location')!, cookie: res.headers.get('set-cookie')! };
}

async function connect(gatewayUrl: string, token: string): Promise<Client> {
  const client = new Client({ name: 'sign-in-callback-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gatewayUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

/** The backend's authorization server, with the gateway registered as a web client whose one redirect URI is the public callback. */
function authorizationServer(callback: string): Promise<RunningAuthorizationServer> {
  return startAuthorizationServer({
    accessTokenFormat: 'jwt',
    clients: [
      {
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        redirect_uris: [callback],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
    ],
  });
}

const userOAuthBackend = (backend: WhoamiBackend, as: RunningAuthorizationServer) => ({
  records: {
    type: 'streamable-http',
    url: backend.url,
    auth: { on_behalf_of: { type: 'user_oauth', issuer: as.issuer, client_id: CLIENT.id, client_secret: CLIENT.secret, scopes: ['mcp:tools'] } },
  },
});

describe('with server.public_url, a sign-in comes back to the gateway (GET /oauth/callback)', () => {
  let idp: TokenExchangeServer;
  let as: RunningAuthorizationServer;
  let backend: WhoamiBackend;
  let browser: HeadlessBrowser;
  let h: Harness;
  let publicUrl: string;
  const clients: Client[] = [];
  /** Where the browser landed after alice signed in (code and state in its query). */
  let landed: string;

  beforeAll(async () => {
    const port = await freePort();
    // Another name than the one the gateway binds (127.0.0.1): the browser reaches it by its public URL.
    publicUrl = `http://localhost:${port}`;
    idp = await startTokenExchangeServer({ gatewayAudience: GATEWAY_AUD, audiences: [], clients: {} });
    as = await authorizationServer(`${publicUrl}/oauth/callback`);
    backend = await startJwtWhoamiBackend(as.issuer);
    as.allowResource(backend.url);
    browser = await launchChromium();
    h = await startGateway(
      {
        server: { host: '127.0.0.1', port, public_url: publicUrl, management: { token: MGMT } },
        incoming_auth: { type: 'jwt', issuer: idp.issuer, jwks_uri: `${idp.issuer}/jwks`, audience: GATEWAY_AUD },
        backends: userOAuthBackend(backend, as),
      },
      { userTokensDir: mkdtempSync(join(tmpdir(), 'gw-user-tokens-')) },
    );
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await h?.close();
    await browser?.close();
    await backend?.close();
    await as?.close();
    await idp?.close();
  });

  it("the user is handed the gateway's consent page, which names her; its button leads to the authorization server, the browser lands on <public_url>/oauth/callback, and her calls carry her token", async () => {
    const alice = await connect(h.url, await idp.userToken('alice'));
    clients.push(alice);
    const url = await signInUrl(alice);
    expectStartPage(url, publicUrl);
    const done = h.waitForEvent((e) => e.stage === 'reauthenticated' && e.details.user === 'alice');
    const page = await authorizeInBrowser(browser, url, `${publicUrl}/oauth/callback`, { login: 'alice' });
    landed = page.url;
    expect(page.consent).toContain('so that the gateway can act for alice at records');
    expect(page.consent).toContain('If you are not alice, close this page.');
    expect(landed.startsWith(`${publicUrl}/oauth/callback?`)).toBe(true);
    expect(page.status, page.text).toBe(200);
    expect(page.text).toContain('Signed in');
    const code = new URL(landed).searchParams.get('code')!;
    expect(code).toBeTruthy();
    expect(page.text).not.toContain(code);
    await done;
    expect(JSON.parse(text(await alice.callTool({ name: 'records_whoami' })))).toEqual({ sub: 'alice', aud: backend.url });
  });

  it('a callback is single use: replayed, and with an unknown or no state, it is a 400 page that says so, with nothing secret on it or in the logs', async () => {
    const code = new URL(landed).searchParams.get('code')!;
    const state = new URL(landed).searchParams.get('state')!;
    const replay = await fetch(landed);
    expect(replay.status).toBe(400);
    expect(replay.headers.get('content-type')).toContain('text/html');
    expect(replay.headers.get('cache-control')).toBe('no-store');
    const body = await replay.text();
    expect(body).toContain('unknown, was already completed, or has expired');
    for (const secret of [code, state]) expect(body).not.toContain(secret);
    const forged = await fetch(`${publicUrl}/oauth/callback?code=forged&state=${randomBytes(32).toString('base64url')}`);
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain('unknown, was already completed, or has expired');
    const noState = await fetch(`${publicUrl}/oauth/callback?code=forged`);
    expect(noState.status).toBe(400);
    expect(await noState.text()).toContain('no state');
    // The user is handed the consent page (in the event and the audit's error, as it is in the client's), so neither the state nor the code is in any log.
    expect(h.logs.join('\n')).not.toContain(code);
    expect(h.logs.join('\n')).not.toContain(state);
    // alice is still served: a replay changed nothing.
    expect(JSON.parse(text(await clients[0]!.callTool({ name: 'records_whoami' }))).sub).toBe('alice');
  });

  it('a user who cancels at the authorization server lands on a 400 page naming the refusal; the next call asks again', async () => {
    const bob = await connect(h.url, await idp.userToken('bob'));
    clients.push(bob);
    const url = await signInUrl(bob);
    expectStartPage(url, publicUrl);
    const failed = h.waitForEvent((e) => e.stage === 'reauth_failed' && e.details.user === 'bob');
    const own = await launchChromium();
    try {
      const page = await authorizeInBrowser(own, url, `${publicUrl}/oauth/callback`, { deny: true });
      expect(page.status).toBe(400);
      expect(page.text).toContain('access_denied');
    } finally {
      await own.close();
    }
    await failed;
    expect(await signInUrl(bob)).not.toBe(url);
  });

  it("the consent page: no script, never framed, its form only to the gateway and the authorization server; a POST without this browser's anti-CSRF cookie and token, or from another origin, is refused", async () => {
    const carol = await connect(h.url, await idp.userToken('carol'));
    clients.push(carol);
    const url = await signInUrl(carol);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain(`form-action 'self' ${new URL(as.issuer).origin}`);
    expect(page.headers.get('cache-control')).toBe('no-store');
    const html = await page.text();
    expect(html).not.toContain('<script');
    expect(html).toContain('<form method="post">');
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
    const csrfCookie = page.headers.get('set-cookie')!;
    expect(csrfCookie).toMatch(/HttpOnly/i);
    expect(csrfCookie).toMatch(/SameSite=Strict/i);
    expect(csrfCookie).toContain(`Path=${new URL(url).pathname}`);
    const post = (headers: Record<string, string>, token: string) =>
      fetch(url, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: `csrf=${token}` });
    const cookie = csrfCookie.split(';')[0]!;
    for (const res of [
      await post({}, csrf), // another site's form: no SameSite=Strict cookie comes with it
      await post({ cookie }, 'forged'),
      // An origin the gateway's DNS-rebinding check lets through (its bound address), but not its public one.
      await post({ cookie, origin: new URL(h.url).origin }, csrf),
    ]) {
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('set-cookie')).toBeNull();
      expect(await res.text()).toContain('did not come from the sign-in page in this browser');
    }
    const { location, cookie: flowCookie } = await consentByHand(url);
    expect(location.startsWith(`${as.issuer}/`)).toBe(true);
    expect(new URL(location).searchParams.get('redirect_uri')).toBe(`${publicUrl}/oauth/callback`);
    expect(flowCookie).toMatch(/^gw_sign_in_[0-9a-f]{16}=/);
    expect(flowCookie).toMatch(/HttpOnly/i);
    expect(flowCookie).toMatch(/SameSite=Lax/i);
    expect(flowCookie).toContain('Path=/oauth;');
    expect(flowCookie).not.toMatch(/Secure/i);
  });

  it("the authorization server's URL opened in a browser that never saw the consent page ends in a 400 at the callback; nothing is stored, and the flow still waits for the browser that passes the page", async () => {
    const dave = await connect(h.url, await idp.userToken('dave'));
    clients.push(dave);
    const url = await signInUrl(dave);
    // dave passes the page by hand and forwards the authorization server's URL; mallory opens it.
    const { location } = await consentByHand(url);
    const mallory = await launchChromium();
    try {
      const page = await authorizeInBrowser(mallory, location, `${publicUrl}/oauth/callback`, { login: 'mallory' });
      expect(page.consent).toBeUndefined();
      expect(page.status).toBe(400);
      expect(page.text).toContain('did not start the sign-in from the gateway');
      expect(page.text).not.toContain(new URL(page.url).searchParams.get('code')!);
    } finally {
      await mallory.close();
    }
    // Not stored: dave is still asked, and for the same flow (the refused callback did not end it).
    expect(await signInUrl(dave)).toBe(url);
    const own = await launchChromium();
    try {
      const page = await authorizeInBrowser(own, url, `${publicUrl}/oauth/callback`, { login: 'dave' });
      expect(page.status, page.text).toBe(200);
    } finally {
      await own.close();
    }
    expect(JSON.parse(text(await dave.callTool({ name: 'records_whoami' })))).toEqual({ sub: 'dave', aud: backend.url });
  });

  it("another browser that passes the consent page (which named erin) finishes erin's flow: the page is the consent", async () => {
    const erin = await connect(h.url, await idp.userToken('erin'));
    clients.push(erin);
    const url = await signInUrl(erin);
    // Seen first in one browser, whose cookie the other does not have.
    const seen = await browser.page();
    expect((await seen.goto(url))?.status()).toBe(200);
    await seen.close();
    const other = await launchChromium();
    try {
      const page = await authorizeInBrowser(other, url, `${publicUrl}/oauth/callback`, { login: 'erin' });
      expect(page.consent).toContain('so that the gateway can act for erin at records');
      expect(page.status, page.text).toBe(200);
    } finally {
      await other.close();
    }
    expect(JSON.parse(text(await erin.callTool({ name: 'records_whoami' })))).toEqual({ sub: 'erin', aud: backend.url });
    // Finished: its consent page is gone, like an unknown one.
    for (const gone of [url, `${publicUrl}/oauth/start/${randomBytes(32).toString('base64url')}`]) {
      const res = await fetch(gone);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toContain('text/html');
      const body = await res.text();
      expect(body).toContain('unknown, was already used to sign in, or has expired');
      expect(body).not.toContain('<form');
      expect(
        (await fetch(gone, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'csrf=x' })).status,
      ).toBe(400);
    }
  });
});

describe('with sessions.store: redis, the replica the browser comes back to finishes a sign-in another started', () => {
  let redis: RedisServer;
  let cluster: Cluster;
  let idp: TokenExchangeServer;
  let as: RunningAuthorizationServer;
  let backend: WhoamiBackend;
  let browser: HeadlessBrowser;
  let commands: Redis;
  let publicUrl: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    redis = await RedisServer.start();
    commands = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await commands.connect();
    const portB = await freePort();
    // The balancer's address, as far as browsers know: here it sends every callback to r2.
    publicUrl = `http://localhost:${portB}`;
    idp = await startTokenExchangeServer({ gatewayAudience: GATEWAY_AUD, audiences: [], clients: {} });
    as = await authorizationServer(`${publicUrl}/oauth/callback`);
    backend = await startJwtWhoamiBackend(as.issuer);
    as.allowResource(backend.url);
    browser = await launchChromium();
    cluster = await Cluster.start({
      redisUrl: redis.url,
      replicas: 2,
      ports: { r2: portB },
      // Replicas share the key that seals users' tokens and pending sign-ins.
      env: { GATEWAY_SECRETS_KEY: randomBytes(32).toString('hex') },
      server: { public_url: publicUrl, management: { token: MGMT } },
      incomingAuth: { type: 'jwt', issuer: idp.issuer, jwks_uri: `${idp.issuer}/jwks`, audience: GATEWAY_AUD },
      backends: userOAuthBackend(backend, as),
    });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await cluster?.stopAll();
    commands?.disconnect();
    await redis?.stop();
    await browser?.close();
    await backend?.close();
    await as?.close();
    await idp?.close();
  });

  it('started on r1, the callback reaches r2, which exchanges the code; then the call on r1 carries the user’s token, and r1 stops waiting', async () => {
    const [a, b] = [cluster.replica('r1'), cluster.replica('r2')];
    expect(new URL(b.url).port).toBe(new URL(publicUrl).port);
    const alice = await connect(a.url, await idp.userToken('alice'));
    clients.push(alice);
    const url = await signInUrl(alice);
    expectStartPage(url, publicUrl);
    // The consent page is served by r2 (the public URL) for a flow r1 started.
    const { location } = await consentByHand(url);
    expect(new URL(location).searchParams.get('redirect_uri')).toBe(`${publicUrl}/oauth/callback`);

    // The pending sign-in waits in Redis: one key by the digest of its state, sealed, expiring; its consent page's key names that digest.
    const state = new URL(location).searchParams.get('state')!;
    const keys = await commands.keys(`${cluster.keyPrefix}:sign-in:*`);
    expect(keys).toHaveLength(1);
    expect(keys[0]).not.toContain(state);
    const starts = await commands.keys(`${cluster.keyPrefix}:sign-in-start:*`);
    expect(starts).toHaveLength(1);
    expect(starts[0]).not.toContain(new URL(url).pathname.split('/').pop());
    expect(`${cluster.keyPrefix}:sign-in:${await commands.get(starts[0]!)}`).toBe(keys[0]);
    const sealed = (await commands.get(keys[0]!))!;
    expect(JSON.parse(sealed)).toMatchObject({ version: 1, iv: expect.any(String), tag: expect.any(String), data: expect.any(String) });
    expect(sealed).not.toContain('alice');
    expect(await commands.pttl(keys[0]!)).toBeGreaterThan(0);

    const page = await authorizeInBrowser(browser, url, `${publicUrl}/oauth/callback`, { login: 'alice' });
    expect(page.status, `${page.text}\n${cluster.logs()}`).toBe(200);
    expect(page.consent).toContain('act for alice at records');
    expect(await commands.keys(`${cluster.keyPrefix}:sign-in:*`)).toEqual([]);
    expect(await commands.keys(`${cluster.keyPrefix}:sign-in-start:*`)).toEqual([]);
    expect(JSON.parse(text(await alice.callTool({ name: 'records_whoami' })))).toEqual({ sub: 'alice', aud: backend.url });

    // r1 heard that the sign-in ended: its own pending flow ends as signed in, not timed out later.
    const deadline = Date.now() + 10_000;
    for (;;) {
      const res = await fetch(`${a.url}/manage/v1/events`, { headers: { authorization: `Bearer ${MGMT}` } });
      const { events } = (await res.json()) as { events: Array<{ stage: string; details?: Record<string, unknown> }> };
      if (events.some((e) => e.stage === 'reauthenticated' && e.details?.user === 'alice')) break;
      expect(Date.now(), 'r1 never heard that alice signed in').toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Replayed at the other replica: already used.
    expect((await fetch(page.url.replace(publicUrl, a.url))).status).toBe(400);
  });
});
