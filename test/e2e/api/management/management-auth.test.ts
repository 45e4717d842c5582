/**
 * Bearer-token protection of the management API (spec section 5): the full
 * matrix of protected endpoints × no token, wrong token and right token;
 * /health and /ready stay public; /mcp is untouched; the environment
 * variable wins over the config key.
 */
import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { managementClient, expectError } from '../../../helpers/management-client.js';
import { managementToken, tokenMatches, TOKEN_ENV } from '../../../../api/management/auth.js';
import type { GatewayConfig } from '../../../../schemas/config.js';

const TOKEN = 'config-token-0123456789abcdef0123456789';

/** Every protected endpoint, with the status a correct token gets on this backend-less gateway. */
const PROTECTED: Array<[method: string, path: string, body: unknown, okStatus: number]> = [
  ['GET', '/status', undefined, 200],
  ['GET', '/backends', undefined, 200],
  ['GET', '/groups', undefined, 200],
  ['GET', '/capabilities', undefined, 200],
  ['GET', '/sessions', undefined, 200],
  ['GET', '/events', undefined, 200],
  ['GET', '/batch', undefined, 200],
  ['POST', '/reload', undefined, 409],
  ['POST', '/reconnect/nope', undefined, 404],
  ['POST', '/reauth/nope', undefined, 404],
  ['GET', '/registry/search?q=files', undefined, 404],
  ['POST', '/registry/install', { name: 'io.github.acme/weather' }, 404],
  ['GET', '/skills', undefined, 200],
  ['POST', '/skills/demo/enable', undefined, 404],
  ['POST', '/skills/demo/disable', undefined, 404],
  ['POST', '/tools/call', { tool: 'nope', arguments: {} }, 404],
  ['POST', '/resources/read', { uri: 'x://nope' }, 404],
  ['GET', '/openapi.json', undefined, 200],
  // A valid token with an invalid body: authenticated, then rejected, so the gateway keeps running.
  ['POST', '/shutdown', { timeout_seconds: -1 }, 400],
];

describe('management API authentication', () => {
  let h: Harness;
  let api: ReturnType<typeof managementClient>;

  beforeAll(async () => {
    delete process.env[TOKEN_ENV];
    h = await startGateway({ server: { host: '127.0.0.1', port: 0, management: { token: TOKEN } } });
    api = managementClient(h.url);
  });
  afterAll(async () => {
    await h?.close();
  });
  afterEach(() => {
    delete process.env[TOKEN_ENV];
  });

  describe.each(PROTECTED)('%s %s', (method, path, body, okStatus) => {
    it('no token: 401', async () => {
      const res = await api.request(method, path, { body, token: null });
      expectError(res, 401, 'unauthorized');
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    });
    it('wrong token: 401', async () => {
      expectError(await api.request(method, path, { body, token: 'wrong' }), 401, 'unauthorized');
    });
    it(`right token: ${okStatus}`, async () => {
      const res = await api.request(method, path, { body, token: TOKEN });
      expect(res.status, res.text).toBe(okStatus);
    });
  });

  it('GET /events/stream: 401 without the token, a stream with it', async () => {
    expectError(await api.get('/events/stream', { token: null }), 401, 'unauthorized');
    expectError(await api.get('/events/stream', { token: 'nope' }), 401, 'unauthorized');
    const ac = new AbortController();
    const res = await fetch(`${h.url}/manage/v1/events/stream`, { headers: { authorization: `Bearer ${TOKEN}` }, signal: ac.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    ac.abort();
  });

  it('/health and /ready are public, whatever the Authorization header says', async () => {
    for (const path of ['/health', '/ready']) {
      for (const token of [null, 'wrong', TOKEN]) {
        const res = await api.get(path, { token });
        expect(res.status, `${path} with ${token}`).toBe(200);
      }
    }
  });

  it('the index is public too', async () => {
    for (const path of ['', '/']) {
      const res = await api.get(path, { token: null });
      expect(res.status, `/manage/v1${path}`).toBe(200);
      expect(res.body.endpoints.length).toBeGreaterThan(20);
    }
  });

  it('the OpenAPI document says which operations need the token, and the hook agrees', async () => {
    const doc = (await api.get('/openapi.json', { token: TOKEN })).body as { paths: Record<string, Record<string, { security?: unknown[] }>> };
    const checked: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const res = await fetch(`${h.url}${path.replace(/\{\w+\}/g, 'nope')}`, { method: method.toUpperCase() });
        await res.body?.cancel();
        const open = Array.isArray(op.security) && op.security.length === 0;
        expect(res.status === 401, `${method} ${path}`).toBe(!open);
        checked.push(`${open ? 'public' : 'token'} ${method} ${path}`);
      }
    }
    expect(checked.filter((c) => c.startsWith('public'))).toEqual([
      'public get /manage/v1/health',
      'public get /manage/v1/ready',
      'public get /manage/v1/session',
      'public post /manage/v1/session',
      'public delete /manage/v1/session',
    ]);
    expect(checked.length).toBeGreaterThan(20);
  });

  it('rejects other schemes and malformed headers', async () => {
    for (const authorization of [`Basic ${TOKEN}`, TOKEN, `Bearer`, `Bearer ${TOKEN} extra`, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`]) {
      const res = await fetch(`${h.url}/manage/v1/status`, { headers: { authorization } });
      expect(res.status, authorization).toBe(401);
    }
    const lower = await fetch(`${h.url}/manage/v1/status`, { headers: { authorization: `bearer ${TOKEN}` } });
    expect(lower.status).toBe(200);
  });

  it('unknown paths under /manage/v1 need the token too', async () => {
    expectError(await api.get('/nope', { token: null }), 401, 'unauthorized');
    expectError(await api.get('/nope', { token: TOKEN }), 404, 'not_found');
  });

  it('GATEWAY_MGMT_TOKEN wins over server.management.token', async () => {
    process.env[TOKEN_ENV] = 'env-token-0123456789abcdef0123456789ab';
    expectError(await api.get('/status', { token: TOKEN }), 401, 'unauthorized');
    expect((await api.get('/status', { token: 'env-token-0123456789abcdef0123456789ab' })).status).toBe(200);
    process.env[TOKEN_ENV] = '';
    expect((await api.get('/status', { token: TOKEN })).status).toBe(200);
  });

  it('the MCP endpoints do not need the management token', async () => {
    const client = await h.connect();
    expect((await client.listTools()).tools).toEqual([]);
    await client.close();
  });
});

describe('token resolution and comparison', () => {
  const config = (token?: string) => ({ server: { management: token === undefined ? {} : { token } } }) as unknown as GatewayConfig;

  it('env first, then config, else open', () => {
    expect(managementToken(config('c'), { [TOKEN_ENV]: 'e' })).toBe('e');
    expect(managementToken(config('c'), {})).toBe('c');
    expect(managementToken(config('c'), { [TOKEN_ENV]: '' })).toBe('c');
    expect(managementToken(config(), {})).toBeUndefined();
  });

  it('matches only the exact bearer token', () => {
    expect(tokenMatches('Bearer abc', 'abc')).toBe(true);
    expect(tokenMatches('BEARER   abc', 'abc')).toBe(true);
    expect(tokenMatches('Bearer abcd', 'abc')).toBe(false);
    expect(tokenMatches('Bearer ', 'abc')).toBe(false);
    expect(tokenMatches(undefined, 'abc')).toBe(false);
  });
});

describe('management API without a token', () => {
  it('is open when neither the config nor the environment sets one', async () => {
    delete process.env[TOKEN_ENV];
    const h = await startGateway({});
    try {
      const api = managementClient(h.url);
      expect((await api.get('/status', { token: null })).status).toBe(200);
      expect((await api.get('/status', { token: 'anything' })).status).toBe(200);
    } finally {
      await h.close();
    }
  });
});
