/**
 * Roles of the management API (viewer, operator, admin) for bearer tokens
 * and console sessions, the console's sign-in (cookie attributes, CSRF,
 * sign-out, a role taken away by a reload), and the endpoints the console
 * reads: the audit trail, a backend's stderr, the running config (redacted),
 * validation and the reload dry run. A real gateway with a real stdio
 * backend; identities are local tokens of `incoming_auth`.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { managementClient, expectError } from '../../../helpers/management-client.js';
import { stdioFixture } from '../../../fixtures/fixture-backend.js';
import { waitFor } from '../../../helpers/wait.js';
import { TOKEN_ENV } from '../../../../api/management/auth.js';
import { MAX_FAILURES } from '../../../../api/management/sign-in-throttle.js';

const MGMT = 'management-token-0123456789abcdef';
const TOKENS = {
  viewer: { name: 'bob', token: 'bob-token-0123456789abcdef', roles: ['dev'] },
  operator: { name: 'alice', token: 'alice-token-0123456789abcdef', roles: ['sre'] },
  admin: { name: 'carol', token: 'carol-token-0123456789abcdef', roles: ['platform'] },
  nobody: { name: 'dave', token: 'dave-token-0123456789abcdef', roles: ['guest'] },
};

const config = (roles: Record<string, string[]> = { viewer: ['dev'], operator: ['sre', 'user:erin'], admin: ['platform'] }) => ({
  server: { host: '127.0.0.1', port: 0, management: { token: MGMT, roles } },
  feature_flags: { hot_reload: true },
  incoming_auth: { type: 'local', tokens: Object.values(TOKENS) },
  authorization: {
    enabled: true,
    default_effect: 'allow',
    policies: [{ effect: 'deny', roles: ['sre'], resources: ['tool:fx_add'] }],
  },
  backends: { fx: stdioFixture(['--name', 'fx']) },
});

/** A browser-like client: keeps the console cookie and sends the CSRF token it was given. */
function browser(url: string) {
  let cookie: string | undefined;
  let csrf: string | undefined;
  return {
    get cookie() {
      return cookie;
    },
    async request(method: string, path: string, body?: unknown, opts: { csrf?: boolean; origin?: string } = {}) {
      const headers: Record<string, string> = {};
      if (cookie) headers.cookie = cookie;
      if (body !== undefined) headers['content-type'] = 'application/json';
      if (opts.csrf !== false && csrf) headers['x-csrf-token'] = csrf;
      if (opts.origin) headers.origin = opts.origin;
      const res = await fetch(`${url}/manage/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const setCookie = res.headers.get('set-cookie');
      if (setCookie) cookie = setCookie.split(';')[0]!.endsWith('=') ? undefined : setCookie.split(';')[0];
      const text = await res.text();
      const json = text ? JSON.parse(text) : undefined;
      if (json?.csrf_token !== undefined) csrf = json.csrf_token ?? undefined;
      return { status: res.status, headers: res.headers, body: json, text };
    },
  };
}

describe('management roles and console sign-in', { timeout: 60_000 }, () => {
  let h: Harness;
  beforeAll(async () => {
    delete process.env[TOKEN_ENV];
    h = await startGateway(config());
  });
  afterAll(async () => {
    await h?.close();
  });

  const as = (who: keyof typeof TOKENS | 'management') => managementClient(h.url, who === 'management' ? MGMT : TOKENS[who].token);
  /** The config file as the harness wrote it (with its audit file and container settings). */
  const written = () => parse(readFileSync(h.configPath, 'utf8'));

  it('each role reads; only operators act on backends; only admins reload; the management token is admin', async () => {
    for (const who of ['viewer', 'operator', 'admin', 'management'] as const) {
      expect((await as(who).get('/backends')).status, who).toBe(200);
    }
    const viewerReconnect = await as('viewer').post('/reconnect/fx');
    expectError(viewerReconnect, 403, 'insufficient_role');
    expect(viewerReconnect.body.details).toEqual({ required: 'operator', role: 'viewer' });
    expect((await as('operator').post('/reconnect/fx')).body.reconnected).toBe(true);
    expectError(await as('operator').post('/reload'), 403, 'insufficient_role');
    expect((await as('admin').post('/reload')).body.reloaded).toBe(true);
    expect((await as('management').post('/reload')).body.reloaded).toBe(true);
    // A viewer may ask the policies (it changes nothing), and may not call a tool.
    expect((await as('viewer').post('/authorization/check', { roles: ['sre'], resource: 'tool:fx_add' })).status).toBe(200);
    expectError(await as('viewer').post('/tools/call', { tool: 'fx_echo', arguments: { text: 'x' } }), 403, 'insufficient_role');
  });

  it('an identity without a role is refused (403), an unknown token is not authenticated (401)', async () => {
    const res = await as('nobody').get('/status');
    expectError(res, 403, 'insufficient_role');
    expect(res.body.details.role).toBeNull();
    const unknown = await managementClient(h.url, 'not-a-token-of-anyone-0123').get('/status');
    expectError(unknown, 401, 'unauthorized');
    expect(unknown.headers.get('www-authenticate')).toBe('Bearer realm="management"');
    expectError(await managementClient(h.url).get('/status'), 401, 'unauthorized');
  });

  it('the OpenAPI document names the role of every operation', async () => {
    const doc = (await as('viewer').get('/openapi.json')).body;
    expect(doc.paths['/manage/v1/reconnect/{name}'].post['x-required-role']).toBe('operator');
    expect(doc.paths['/manage/v1/reload'].post['x-required-role']).toBe('admin');
    expect(doc.paths['/manage/v1/backends'].get['x-required-role']).toBe('viewer');
    expect(doc.paths['/manage/v1/audit'].get['x-required-role']).toBe('viewer');
    expect(doc.paths['/manage/v1/session'].post['x-required-role']).toBeUndefined();
    expect(doc.components.securitySchemes.consoleSession).toMatchObject({ type: 'apiKey', in: 'cookie' });
  });

  it('a tool called by a person runs as them: the policies apply and the audit record names them', async () => {
    // alice (sre) is denied fx_add by policy 0; the management token is not restricted.
    expectError(await as('operator').post('/tools/call', { tool: 'fx_add', arguments: { a: 1, b: 2 } }), 404, 'tool_not_found');
    expect((await as('management').post('/tools/call', { tool: 'fx_add', arguments: { a: 1, b: 2 } })).body.content[0].text).toBe('3');

    const call = await as('operator').post('/tools/call', { tool: 'fx_echo', arguments: { text: 'hello' } });
    expect(call.body).toMatchObject({ tool: 'fx_echo', backend: 'fx', isError: false, structuredContent: { text: 'hello' } });
    expect(call.body.call_id).toMatch(/^[0-9a-f-]{36}$/);
    const audit = await as('viewer').get(`/audit?call_id=${call.body.call_id}`);
    expect(audit.status).toBe(200);
    expect(audit.body.complete).toBe(true);
    expect(audit.body.records).toHaveLength(1);
    expect(audit.body.records[0]).toMatchObject({
      source: { session_id: 'management', user_id: 'alice', roles: ['sre'] },
      target: { capability_name: 'fx_echo', method: 'call_tool', backend: 'fx' },
      outcome: { status: 'success' },
      metadata: { call_id: call.body.call_id },
    });
  });

  it('GET /audit filters by user, tool, outcome and time, oldest first, and refuses a bad time', async () => {
    const before = new Date().toISOString();
    await as('admin').post('/tools/call', { tool: 'fx_fail', arguments: { message: 'no' } });
    await as('operator').post('/tools/call', { tool: 'fx_echo', arguments: { text: 'one' } });
    await as('operator').post('/tools/call', { tool: 'fx_echo', arguments: { text: 'two' } });
    const mine = (await as('viewer').get(`/audit?user=alice&since=${encodeURIComponent(before)}`)).body.records;
    expect(mine.map((r: any) => r.target.capability_name)).toEqual(['fx_echo', 'fx_echo']);
    expect(Date.parse(mine[0].timestamp)).toBeLessThanOrEqual(Date.parse(mine[1].timestamp));
    const errors = (await as('viewer').get(`/audit?outcome=error&since=${encodeURIComponent(before)}`)).body.records;
    expect(errors.map((r: any) => [r.source.user_id, r.target.capability_name])).toEqual([['carol', 'fx_fail']]);
    const newest = (await as('viewer').get('/audit?tool=fx_echo&limit=1')).body.records;
    expect(newest).toHaveLength(1);
    const until = (await as('viewer').get(`/audit?until=${encodeURIComponent(before)}&since=${encodeURIComponent(before)}`)).body.records;
    expect(until).toEqual([]);
    expectError(await as('viewer').get('/audit?since=yesterday'), 400, 'bad_request');
    expectError(await as('viewer').get('/audit?outcome=maybe'), 400, 'bad_request');
  });

  it('GET /backends/{name}/stderr has what the process wrote, across reconnects; an unknown backend is 404', async () => {
    const res = await waitFor(async () => {
      const r = await as('viewer').get('/backends/fx/stderr');
      return r.body.lines.some((l: any) => l.text.startsWith('fixture:')) && r;
    }, 'stderr lines of fx');
    expect(res.body.name).toBe('fx');
    for (const line of res.body.lines) expect(Number.isNaN(Date.parse(line.at))).toBe(false);
    expect((await as('viewer').get('/backends/fx/stderr?limit=1')).body.lines).toHaveLength(1);
    expectError(await as('viewer').get('/backends/nope/stderr'), 404, 'backend_not_found');
  });

  it('GET /config shows the running file with every credential redacted', async () => {
    const res = await as('viewer').get('/config');
    expect(res.status).toBe(200);
    expect(res.body.file_path).toBe(h.configPath);
    expect(res.body.yaml).toContain('backends:');
    for (const secret of [MGMT, ...Object.values(TOKENS).map((t) => t.token)]) expect(res.body.yaml).not.toContain(secret);
    expect(res.body.yaml).toContain('token: <redacted>');
    expect(res.body.yaml).toContain('name: alice');
  });

  it('POST /config/validate says what a text would change, or why it would not load; POST /reload dry_run applies nothing', async () => {
    const base = written();
    const next = { ...base, backends: { ...base.backends, fy: stdioFixture(['--name', 'fy']) }, health: { interval_s: 7 } };
    const valid = await as('viewer').post('/config/validate', { yaml: stringify(next) });
    expect(valid.body).toMatchObject({
      valid: true,
      backends_added: ['fy'],
      backends_removed: [],
      backends_changed: [],
      settings_changed: ['health.interval_s'],
      errors: [],
    });
    const invalid = await as('viewer').post('/config/validate', { yaml: 'server:\n  port: lots\n' });
    expect(invalid.body.valid).toBe(false);
    expect(invalid.body.errors[0]).toMatchObject({ path: 'server.port', line: 2 });

    h.writeConfig(next);
    const eventsBefore = h.gateway.events.list().filter((e) => e.stage === 'reload').length;
    expectError(await as('operator').post('/reload', { dry_run: true }), 403, 'insufficient_role');
    const dry = await as('admin').post('/reload', { dry_run: true });
    expect(dry.body).toEqual({
      reloaded: false,
      dry_run: true,
      valid: true,
      backends_added: ['fy'],
      backends_removed: [],
      backends_changed: [],
      settings_changed: ['health.interval_s'],
      errors: [],
    });
    expect(Object.keys(h.gateway.controller.config.backends)).toEqual(['fx']);
    expect(h.gateway.events.list().filter((e) => e.stage === 'reload').length).toBe(eventsBefore);
    h.writeConfig(base);
  });

  it('POST /authorization/check names the deciding policy', async () => {
    const res = await as('viewer').post('/authorization/check', { roles: ['sre'], resource: 'tool:fx_add' });
    expect(res.body).toEqual({
      allowed: false,
      policy_index: 0,
      effect: 'deny',
      reason: 'policy 0 (deny) matched the roles and the resource',
      conditions: [],
      policy: { effect: 'deny', roles: ['sre'], resources: ['tool:fx_add'] },
    });
    expect((await as('viewer').post('/authorization/check', { roles: [], resource: 'tool:fx_add' })).body.policy).toBeNull();
  });

  describe('console sessions', () => {
    it('a token is exchanged for an HttpOnly, SameSite=Strict cookie; changes need the CSRF token; sign-out ends it', async () => {
      const b = browser(h.url);
      expect((await b.request('GET', '/session')).body).toMatchObject({ signed_in: false, sign_in: { token: true, identity_provider: null } });
      expectError(await b.request('POST', '/session', { token: 'wrong-token-0123456789' }), 401, 'unauthorized');

      const signIn = await b.request('POST', '/session', { token: TOKENS.operator.token });
      expect(signIn.status).toBe(200);
      expect(signIn.body).toMatchObject({ signed_in: true, user: 'alice', role: 'operator', credential: 'console_session' });
      expect(signIn.body.csrf_token).toMatch(/^[\w-]{40,}$/);
      const cookie = signIn.headers.get('set-cookie')!;
      expect(cookie).toMatch(/^gw_console=[\w-]{40,}; Path=\/; HttpOnly; SameSite=Strict$/);
      // The token itself is nowhere in the answer.
      expect(signIn.text).not.toContain(TOKENS.operator.token);

      expect((await b.request('GET', '/backends')).status).toBe(200);
      const noCsrf = await b.request('POST', '/reconnect/fx', undefined, { csrf: false });
      expectError(noCsrf, 403, 'forbidden');
      expect(noCsrf.body.details.reason).toBe('csrf');
      expect((await b.request('POST', '/reconnect/fx')).body.reconnected).toBe(true);
      expectError(await b.request('POST', '/reload'), 403, 'insufficient_role');

      const kept = b.cookie;
      expectError(await b.request('DELETE', '/session', undefined, { csrf: false }), 403, 'forbidden');
      const out = await b.request('DELETE', '/session');
      expect(out.body).toMatchObject({ signed_in: false, csrf_token: null });
      expect(out.headers.get('set-cookie')).toMatch(/^gw_console=; Max-Age=0; Path=\/; HttpOnly; SameSite=Strict$/);
      // The old cookie is worth nothing now, even if a browser kept it.
      const replay = await fetch(`${h.url}/manage/v1/backends`, { headers: { cookie: kept! } });
      expect(replay.status).toBe(401);
    });

    it('the management token signs in as admin; a reload that takes a role away ends that sign-in at once', async () => {
      const admin = browser(h.url);
      expect((await admin.request('POST', '/session', { token: MGMT })).body).toMatchObject({ user: null, role: 'admin', credential: 'console_session' });
      const viewer = browser(h.url);
      expect((await viewer.request('POST', '/session', { token: TOKENS.viewer.token })).body.role).toBe('viewer');

      const base = written();
      h.writeConfig({ ...base, server: { ...base.server, management: { token: MGMT, roles: { operator: ['sre'], admin: ['platform'] } } } });
      expect((await as('management').post('/reload')).body.reloaded).toBe(true);
      expectError(await viewer.request('GET', '/backends'), 401, 'unauthorized');
      expect((await admin.request('GET', '/backends')).status).toBe(200);
      h.writeConfig(base);
      expect((await as('management').post('/reload')).body.reloaded).toBe(true);
    });

    it('a cross-site POST is refused before it is read, cookie or not', async () => {
      const b = browser(h.url);
      await b.request('POST', '/session', { token: MGMT });
      // Another site (DNS rebinding) and another local origin (a page on another port).
      expectError(await b.request('POST', '/reload', {}, { origin: 'http://evil.example' }), 403, 'forbidden');
      const otherPort = await fetch(`${h.url}/manage/v1/shutdown`, {
        method: 'POST',
        headers: { origin: 'http://127.0.0.1:1', 'content-type': 'application/x-www-form-urlencoded', cookie: b.cookie! },
        body: 'timeout_seconds=0',
      });
      expect(otherPort.status).toBe(403);
      expect(h.gateway.controller.state).toBe('running');
    });

    it('too many failed sign-ins from one address are slowed down (429 with Retry-After)', async () => {
      const b = browser(h.url);
      let last;
      for (let i = 0; i <= MAX_FAILURES; i++) last = await b.request('POST', '/session', { token: `guess-${i}-0123456789abcdef` });
      expectError(last!, 429, 'rate_limited');
      expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
      // Even the right token waits: the address is slowed down, not the guess.
      expectError(await b.request('POST', '/session', { token: MGMT }), 429, 'rate_limited');
    });
  });
});

describe('the console page', { timeout: 60_000 }, () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startGateway({});
  });
  afterAll(async () => {
    await h?.close();
  });

  it('is served with a strict CSP, precompressed, index no-cache and hashed assets immutable', async () => {
    const index = await fetch(`${h.url}/console/`, { headers: { 'accept-encoding': 'br' } });
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/^text\/html/);
    expect(index.headers.get('content-encoding')).toBe('br');
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const csp = index.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(index.headers.get('x-frame-options')).toBe('DENY');
    const html = await index.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(html).not.toMatch(/<style|style=/);
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const js = await fetch(`${h.url}${script}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(js.status).toBe(200);
    expect(js.headers.get('content-encoding')).toBe('gzip');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${h.url}/console`, { redirect: 'manual' })).headers.get('location')).toBe('/console/');
  });

  it('is off when server.console.enabled is false (a reload applies it)', async () => {
    h.writeConfig({ server: { host: '127.0.0.1', port: 0, console: { enabled: false } }, feature_flags: { hot_reload: true } });
    await h.gateway.controller.reload('watch');
    const res = await fetch(`${h.url}/console/`);
    expect(res.status).toBe(404);
    expect((await res.json()).error).toBe('not_found');
  });
});
