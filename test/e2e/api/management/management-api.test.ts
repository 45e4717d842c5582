/**
 * The management API over real HTTP against a gateway with a stdio and a
 * streamable-HTTP fixture backend: every endpoint's shape field by field, and
 * its error paths. One gateway for the whole file.
 */
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { waitFor } from '../../../helpers/wait.js';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { fixtureCommand, startHttpFixture, type HttpFixture } from '../../../fixtures/spawn.js';
import { managementClient, expectError, expectKeys } from '../../../helpers/management-client.js';

describe('management API (open, two backends)', () => {
  let h: Harness;
  let http: HttpFixture;
  let api: ReturnType<typeof managementClient>;

  beforeAll(async () => {
    http = await startHttpFixture({ transport: 'streamable-http', name: 'hfix' });
    const stdio = fixtureCommand(['--name', 'sfix']);
    h = await startGateway({
      backends: {
        s: {
          type: 'stdio',
          command: stdio.command,
          args: stdio.args,
          group: 'local',
          labels: { tier: 'a' },
          filters: { tools: { deny: ['whoami'] } },
          rename: { tools: { add: { name: 'plus' } } },
          timeouts: { request_s: 1 },
        },
        h: { type: 'streamable-http', url: http.url, group: 'remote' },
      },
    });
    api = managementClient(h.url);
  });
  afterAll(async () => {
    await h?.close();
    await http?.stop();
  });

  describe('monitoring', () => {
    it('GET /health', async () => {
      const res = await api.get('/health');
      expect(res.status).toBe(200);
      expectKeys(res.body, ['status', 'uptime_seconds', 'version', 'backends']);
      expect(res.body.status).toBe('healthy');
      expect(typeof res.body.uptime_seconds).toBe('number');
      expect(res.body.version).toMatch(/^\d+\.\d+\.\d+/);
      expect(res.body.backends).toEqual({ total: 2, connected: 2, healthy: 2 });
    });

    it('GET /ready', async () => {
      const res = await api.get('/ready');
      expect(res.status).toBe(200);
      expectKeys(res.body, ['ready', 'reason']);
      expect(res.body.ready).toBe(true);
      expect(res.body.reason).toMatch(/2 of 2/);
    });

    it('GET /status', async () => {
      const res = await api.get('/status');
      expect(res.status).toBe(200);
      const { service, config, transport, feature_flags } = res.body;
      expectKeys(res.body, ['service', 'config', 'transport', 'feature_flags', 'replica']);
      expectKeys(service, ['name', 'version', 'state', 'uptime_seconds', 'started_at']);
      expect(service.state).toBe('running');
      expect(typeof service.name).toBe('string');
      expect(typeof service.uptime_seconds).toBe('number');
      expect(new Date(service.started_at).toISOString()).toBe(service.started_at);
      expect(config).toEqual({ file_path: h.configPath, loaded_at: expect.any(String), backend_count: 2 });
      expect(Number.isNaN(Date.parse(config.loaded_at))).toBe(false);
      const port = Number(new URL(h.url).port);
      expect(transport).toEqual({ sse_url: `${h.url}/sse`, streamable_http_url: `${h.url}/mcp`, host: '127.0.0.1', port });
      expect(feature_flags).toEqual({ optimizer: false, hot_reload: false, outgoing_auth: false, session_management: true, yaml_config: true });
      // Beyond the spec (issue 23): this replica and its session store.
      expect(res.body.replica).toEqual({ id: `${hostname()}-${process.pid}`, sessions_store: { type: 'memory', status: 'ok' } });
    });

    it('GET /backends: one record per backend, spec 2.2 fields', async () => {
      const res = await api.get('/backends');
      expect(res.status).toBe(200);
      expectKeys(res.body, ['backends']);
      expect(res.body.backends.map((b: { name: string }) => b.name)).toEqual(['s', 'h']);
      const s = res.body.backends[0];
      // Spec 2.2's fields, plus `container` (issue 12): null for a bare process, `quarantined_tools` (issue 25), `circuit` (issue 27): null with no circuit breaker, and `conflicts` (issue 36).
      expectKeys(s, [
        'name',
        'type',
        'group',
        'phase',
        'state',
        'error',
        'capabilities',
        'quarantined_tools',
        'conflicts',
        'health',
        'conditions',
        'labels',
        'container',
        'circuit',
        'protocol_version',
      ]);
      expect(s).toMatchObject({
        name: 's',
        type: 'stdio',
        group: 'local',
        phase: 'Ready',
        state: 'connected',
        error: null,
        labels: { tier: 'a' },
        container: null,
        quarantined_tools: 0,
        conflicts: [],
        circuit: null,
      });
      expectKeys(s.capabilities, ['tools', 'resources', 'prompts']);
      expect(Number.isInteger(s.capabilities.tools) && s.capabilities.tools > 0).toBe(true);
      expectKeys(s.health, ['status', 'last_check', 'latency_ms']);
      const ready = s.conditions.find((c: { type: string }) => c.type === 'Ready');
      expectKeys(ready, ['type', 'status', 'reason', 'message', 'last_transition']);
      expect(ready.status).toBe(true);
      expect(res.body.backends[1]).toMatchObject({ name: 'h', type: 'streamable-http', group: 'remote', labels: {} });
    });

    it('GET /groups with and without a filter', async () => {
      const all = await api.get('/groups');
      expect(all.status).toBe(200);
      expect(all.body).toEqual({
        groups: { local: { servers: ['s'], count: 1 }, remote: { servers: ['h'], count: 1 } },
        total_groups: 2,
        total_servers: 2,
      });
      expect((await api.get('/groups?group=remote')).body).toEqual({ groups: { remote: { servers: ['h'], count: 1 } }, total_groups: 1, total_servers: 1 });
      expect((await api.get('/groups?group=none')).body).toEqual({ groups: {}, total_groups: 0, total_servers: 0 });
    });
  });

  describe('GET /capabilities', () => {
    it('lists tools (with filtered and renamed ones), resources, prompts and the route map', async () => {
      const res = await api.get('/capabilities');
      expect(res.status).toBe(200);
      expectKeys(res.body, ['tools', 'resources', 'prompts', 'route_map']);
      const tool = (name: string) => res.body.tools.find((t: { name: string }) => t.name === name);
      const echo = tool('s_echo');
      expectKeys(echo, ['name', 'original_name', 'description', 'backend', 'input_schema', 'filtered', 'renamed']);
      expect(echo).toMatchObject({ original_name: 'echo', backend: 's', filtered: false, renamed: false });
      expect(echo.input_schema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } } });
      expect(tool('s_whoami')).toMatchObject({ filtered: true, original_name: 'whoami' });
      expect(tool('s_plus')).toMatchObject({ renamed: true, original_name: 'add' });
      expect(tool('h_echo')).toMatchObject({ backend: 'h' });

      const info = res.body.resources.find((r: { uri: string }) => r.uri === 'fixture://sfix/info');
      expect(info).toEqual({ uri: 'fixture://sfix/info', name: 'info', backend: 's', mime_type: 'text/plain' });
      const greet = res.body.prompts.find((p: { name: string }) => p.name === 's_greet');
      expectKeys(greet, ['name', 'description', 'backend', 'arguments']);
      expect(greet.arguments[0]).toMatchObject({ name: 'name' });

      expect(res.body.route_map.s_echo).toEqual(['s', 'echo']);
      expect(res.body.route_map.s_plus).toEqual(['s', 'add']);
      expect(res.body.route_map['fixture://hfix/info']).toEqual(['h', 'fixture://hfix/info']);
      expect(res.body.route_map['fixture://sfix/items/{id}']).toEqual(['s', 'fixture://sfix/items/{id}']);
      expect(res.body.route_map.s_whoami).toBeUndefined();
    });

    it('filters by type, backend and search', async () => {
      const tools = (await api.get('/capabilities?type=tools')).body;
      expect(tools.tools.length).toBeGreaterThan(0);
      expect([tools.resources, tools.prompts]).toEqual([[], []]);
      expect(Object.keys(tools.route_map).every((k) => !k.startsWith('fixture://') && k !== 's_greet')).toBe(true);

      const onlyH = (await api.get('/capabilities?backend=h')).body;
      expect(onlyH.tools.every((t: { backend: string }) => t.backend === 'h')).toBe(true);
      expect(onlyH.resources.every((t: { backend: string }) => t.backend === 'h')).toBe(true);
      expect(Object.values(onlyH.route_map).every((r) => (r as string[])[0] === 'h')).toBe(true);

      const echo = (await api.get('/capabilities?search=ECHO')).body;
      expect(echo.tools.map((t: { name: string }) => t.name).sort()).toEqual(['h_echo', 's_echo']);
      expect(echo.prompts).toEqual([]);

      expect((await api.get('/capabilities?backend=nope')).body).toEqual({ tools: [], resources: [], prompts: [], route_map: {} });
    });

    it('rejects an unknown type with 400', async () => {
      expectError(await api.get('/capabilities?type=widgets'), 400, 'bad_request');
    });
  });

  it('GET /sessions reports /mcp and /sse client sessions', async () => {
    const before = (await api.get('/sessions')).body.sessions.length;
    const c1 = await h.connect();
    const c2 = await h.connect({ transport: 'sse' });
    const res = await api.get('/sessions');
    expect(res.status).toBe(200);
    expectKeys(res.body, ['active_sessions', 'sessions']);
    expect(res.body.sessions.length).toBe(before + 2);
    expect(res.body.active_sessions).toBe(res.body.sessions.length);
    const types = res.body.sessions.map((s: { transport_type: string }) => s.transport_type);
    expect(types).toEqual(expect.arrayContaining(['streamable-http', 'sse']));
    const s = res.body.sessions[0];
    expectKeys(s, [
      'id',
      'transport_type',
      'client_name',
      'client_version',
      'protocol_version',
      'tool_count',
      'capability_snapshot',
      'age_seconds',
      'idle_seconds',
      'ttl',
      'expired',
      'replica',
      'user_id',
      'roles',
      'waiting_input',
    ]);
    expect(s.replica).toBe(`${hostname()}-${process.pid}`);
    // No call of theirs waits for their input.
    expect(s.waiting_input).toBe(0);
    // Anonymous clients (incoming_auth.type: anonymous, the default) own their sessions as nobody.
    expect(s.user_id).toBeNull();
    expect(s.roles).toEqual([]);
    expectKeys(s.capability_snapshot, ['tools', 'resources', 'prompts']);
    expect(s.tool_count).toBe(s.capability_snapshot.tools);
    expect(res.body.sessions.map((r: { client_name: string }) => r.client_name)).toContain('test-client');
    expect(s.tool_count).toBe((await c1.listTools()).tools.length);
    expect(s.ttl).toBe(1800);
    expect(s.expired).toBe(false);
    expect(typeof s.age_seconds).toBe('number');
    expect(s.idle_seconds).toBeLessThanOrEqual(s.age_seconds);
    await c1.close();
    await c2.close();
  });

  describe('GET /events and /batch', () => {
    it('returns event records, newest `limit`, filtered by since and severity', async () => {
      // Each backend's catalog is announced once it has settled: after that, nothing new is recorded while the queries run.
      await waitFor(
        async () => (await api.get('/events')).body.events.filter((x: { stage: string }) => x.stage === 'catalog').length >= 2,
        'both catalogs announced',
      );
      const res = await api.get('/events');
      expect(res.status).toBe(200);
      expectKeys(res.body, ['events']);
      const e = res.body.events.find((x: { stage: string }) => x.stage === 'connected');
      expectKeys(e, ['id', 'timestamp', 'stage', 'message', 'severity', 'backend', 'details']);
      expect(e.severity).toBe('info');

      const two = (await api.get('/events?limit=2')).body.events;
      expect(two.map((x: { id: string }) => x.id)).toEqual(res.body.events.slice(-2).map((x: { id: string }) => x.id));
      expect((await api.get('/events?since=2999-01-01T00:00:00Z')).body.events).toEqual([]);
      expect((await api.get('/events?since=2000-01-01')).body.events.length).toBe(res.body.events.length);
      const cut = res.body.events[0].timestamp;
      const after = (await api.get(`/events?since=${encodeURIComponent(cut)}`)).body.events;
      expect(after.every((x: { timestamp: string }) => x.timestamp > cut)).toBe(true);
      const info = (await api.get('/events?severity=info')).body.events;
      expect(info.length).toBeGreaterThan(0);
      expect(info.every((x: { severity: string }) => x.severity === 'info')).toBe(true);
    });

    it.each([
      ['limit=0'],
      ['limit=1001'],
      ['limit=abc'],
      ['limit=1.5'],
      ['since=yesterday'],
      ['since=2024-02-30'],
      ['since=2024-01-01T25:00:00Z'],
      ['severity=fatal'],
    ])('GET /events?%s is a 400', async (query) => {
      expectError(await api.get(`/events?${query}`), 400, 'bad_request');
    });

    it('GET /batch embeds status, backends, capabilities and events', async () => {
      const res = await api.get('/batch');
      expect(res.status).toBe(200);
      expectKeys(res.body, ['status', 'backends', 'capabilities', 'events']);
      expectKeys(res.body.status, ['service', 'config', 'transport', 'feature_flags', 'replica']);
      expectKeys(res.body.backends, ['backends']);
      expect(res.body.backends.backends).toHaveLength(2);
      expectKeys(res.body.capabilities, ['tools', 'resources', 'prompts', 'route_map']);
      expectKeys(res.body.events, ['events']);
      expect(res.body.events.events.length).toBeLessThanOrEqual(20);
      expect((await api.get('/batch?events_limit=1')).body.events.events).toHaveLength(1);
      expectError(await api.get('/batch?events_limit=0'), 400, 'bad_request');
      expectError(await api.get('/batch?events_limit=x'), 400, 'bad_request');
    });
  });

  describe('control', () => {
    it('POST /reload with hot reload off is 409 hot_reload_disabled', async () => {
      expectError(await api.post('/reload'), 409, 'hot_reload_disabled');
    });

    it('POST /reauth/{name}: 404 for unknown, no flow without outgoing auth', async () => {
      expectError(await api.post('/reauth/nope'), 404, 'backend_not_found');
      const res = await api.post('/reauth/s');
      expect(res.status).toBe(200);
      // The spec's fields plus the authorization URL (issue 16): null when no flow started.
      expectKeys(res.body, ['name', 'reauth_initiated', 'error', 'authorization_url']);
      expect(res.body.authorization_url).toBeNull();
      expect(res.body.name).toBe('s');
      expect(res.body.reauth_initiated).toBe(false);
      expect(res.body.error).toMatch(/outgoing auth/);
    });

    it('POST /reconnect/{name}: 404 for unknown', async () => {
      expectError(await api.post('/reconnect/nope'), 404, 'backend_not_found');
    });
  });

  describe('registry and skills (none configured)', () => {
    it.each([[''], ['?q='], ['?q=%20%20'], ['?q=a-b'], ['?q=caf%C3%A9'], ['?q=ok&limit=101'], ['?q=ok&limit=0'], ['?q=ok&limit=x']])(
      'GET /registry/search%s is a 400',
      async (query) => {
        expectError(await api.get(`/registry/search${query}`), 400, 'bad_request');
      },
    );

    it('a valid search finds no registry: 404 registry_not_found', async () => {
      expectError(await api.get('/registry/search?q=file%20system&limit=100'), 404, 'registry_not_found');
      const named = await api.get('/registry/search?q=git&registry=official');
      expectError(named, 404, 'registry_not_found');
      expect(named.body.details).toEqual({ registry: 'official' });
    });

    it('installing with no registry configured: 404 registry_not_found', async () => {
      expectError(await api.post('/registry/install', { name: 'io.github.acme/weather' }), 404, 'registry_not_found');
    });

    it('no skills directory: an empty list, and an unknown skill is 404 skill_not_found', async () => {
      const res = await api.get('/skills');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ skills: [] });
      expectError(await api.post('/skills/demo/enable'), 404, 'skill_not_found');
      expectError(await api.post('/skills/demo/disable'), 404, 'skill_not_found');
    });
  });

  describe('POST /tools/call', () => {
    it('calls a tool through the router and audits it as the management caller', async () => {
      const res = await api.post('/tools/call', { tool: 's_echo', arguments: { text: 'hi there' } });
      expect(res.status).toBe(200);
      const callId = expect.stringMatching(/^[0-9a-f-]{36}$/);
      // The echo tool answers with structured content too; its call id names its audit record (GET /audit?call_id=).
      expect(res.body).toEqual({
        tool: 's_echo',
        backend: 's',
        content: [{ type: 'text', text: 'hi there' }],
        structuredContent: { text: 'hi there' },
        isError: false,
        call_id: callId,
      });
      const renamed = await api.post('/tools/call', { tool: 's_plus', arguments: { a: 2, b: 3 } });
      expect(renamed.body).toEqual({ tool: 's_plus', backend: 's', content: [{ type: 'text', text: '5' }], isError: false, call_id: callId });

      const auditFile = join(h.dir, 'audit.jsonl');
      await expect.poll(() => existsSync(auditFile) && readFileSync(auditFile, 'utf8').includes('"s_plus"'), { timeout: 5000 }).toBe(true);
      const records = readFileSync(auditFile, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const rec = records.find((r) => r.target.capability_name === 's_plus');
      expect(rec.source.session_id).toBe('management');
      expect(rec.target).toMatchObject({ backend: 's', method: 'call_tool', original_name: 'add' });
      expect(rec.outcome.status).toBe('success');
      expect(rec.metadata.call_id).toBe(renamed.body.call_id);
      // The open API's caller is nobody in particular: no user in the record.
      expect(rec.source.user_id).toBeUndefined();
    });

    it('a tool-level failure is 200 with isError: true', async () => {
      const res = await api.post('/tools/call', { tool: 's_fail', arguments: { message: 'nope' } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ tool: 's_fail', backend: 's', content: [{ type: 'text', text: 'nope' }], isError: true, call_id: expect.any(String) });
    });

    it('unknown tool 404, backend error 502, timeout 502, filtered tool 404', async () => {
      expectError(await api.post('/tools/call', { tool: 'no_such_tool', arguments: {} }), 404, 'tool_not_found');
      expectError(await api.post('/tools/call', { tool: 's_whoami', arguments: {} }), 404, 'tool_not_found');
      const thrown = await api.post('/tools/call', { tool: 's_throw', arguments: { message: 'kaboom' } });
      expectError(thrown, 502, 'backend_error');
      expect(thrown.body.message).toMatch(/kaboom/);
      const slow = await api.post('/tools/call', { tool: 's_slow', arguments: { steps: 3, delay_ms: 600 } });
      expectError(slow, 502, 'backend_timeout');
    });

    it('a backend without a usable session is 503 backend_unavailable', async () => {
      const pool = h.gateway.serving;
      const original = pool.target.bind(pool);
      pool.target = () => undefined;
      try {
        expectError(await api.post('/tools/call', { tool: 'h_echo', arguments: { text: 'x' } }), 503, 'backend_unavailable');
        expectError(await api.post('/resources/read', { uri: 'fixture://hfix/info' }), 503, 'backend_unavailable');
      } finally {
        pool.target = original;
      }
    });

    it.each([
      ['malformed JSON', '{"tool": "s_echo",', 'application/json'],
      ['missing arguments', '{"tool": "s_echo"}', 'application/json'],
      ['missing tool', '{"arguments": {}}', 'application/json'],
      ['tool of the wrong type', '{"tool": 5, "arguments": {}}', 'application/json'],
      ['arguments of the wrong type', '{"tool": "s_echo", "arguments": "x"}', 'application/json'],
      ['an array body', '[]', 'application/json'],
      ['an empty body', '', 'application/json'],
    ])('%s is a 400 bad_request', async (_what, raw, contentType) => {
      expectError(await api.request('POST', '/tools/call', { raw, contentType }), 400, 'bad_request');
    });

    it('no body at all is a 400; an unsupported media type (text/plain included: only JSON bodies are read) a 415', async () => {
      expectError(await api.request('POST', '/tools/call'), 400, 'bad_request');
      expectError(await api.request('POST', '/tools/call', { raw: 'hello', contentType: 'text/plain' }), 415, 'unsupported_media_type');
      expectError(await api.request('POST', '/tools/call', { raw: 'tool=x', contentType: 'application/x-www-form-urlencoded' }), 415, 'unsupported_media_type');
    });
  });

  describe('POST /resources/read', () => {
    it('reads static and templated resources', async () => {
      const res = await api.post('/resources/read', { uri: 'fixture://sfix/info' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        uri: 'fixture://sfix/info',
        backend: 's',
        contents: [{ uri: 'fixture://sfix/info', mimeType: 'text/plain', text: 'info from sfix' }],
      });
      const item = await api.post('/resources/read', { uri: 'fixture://hfix/items/2' });
      expect(item.body).toMatchObject({ backend: 'h', contents: [{ text: 'item 2 from hfix' }] });
    });

    it('unknown resource 404, bad body 400', async () => {
      expectError(await api.post('/resources/read', { uri: 'fixture://nobody/info' }), 404, 'resource_not_found');
      expectError(await api.post('/resources/read', {}), 400, 'bad_request');
      expectError(await api.post('/resources/read', { uri: 42 }), 400, 'bad_request');
    });
  });

  describe('POST /prompts/get', () => {
    it('renders a prompt through the router, as the management caller, audited', async () => {
      const res = await api.post('/prompts/get', { name: 's_greet', arguments: { name: 'ada' } });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({
        prompt: 's_greet',
        backend: 's',
        messages: [{ role: 'user', content: { type: 'text', text: 'Hello ada from sfix' } }],
      });
      const auditFile = join(h.dir, 'audit.jsonl');
      await expect.poll(() => existsSync(auditFile) && readFileSync(auditFile, 'utf8').includes('"get_prompt"'), { timeout: 5000 }).toBe(true);
      const rec = readFileSync(auditFile, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .find((r) => r.target.method === 'get_prompt');
      expect(rec.source.session_id).toBe('management');
      expect(rec.target).toMatchObject({ backend: 's', capability_name: 's_greet', original_name: 'greet' });
    });

    it('unknown prompt 404, bad body 400', async () => {
      expectError(await api.post('/prompts/get', { name: 'nope' }), 404, 'prompt_not_found');
      expectError(await api.post('/prompts/get', {}), 400, 'bad_request');
      expectError(await api.post('/prompts/get', { name: 's_greet', arguments: { name: 7 } }), 400, 'bad_request');
    });
  });

  it('an unknown management path is a 404 with the error body', async () => {
    expectError(await api.get('/nope'), 404, 'not_found');
    expectError(await api.request('DELETE', '/backends'), 404, 'not_found');
  });

  it('GET /openapi.json describes every endpoint from the route schemas', async () => {
    const res = await api.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const paths = res.body.paths;
    const expected: Array<[string, string]> = [
      ['get', '/health'],
      ['get', '/ready'],
      ['get', '/status'],
      ['get', '/backends'],
      ['get', '/groups'],
      ['get', '/capabilities'],
      ['get', '/sessions'],
      ['get', '/events'],
      ['get', '/events/stream'],
      ['get', '/batch'],
      ['post', '/reload'],
      ['post', '/reconnect/{name}'],
      ['post', '/reauth/{name}'],
      ['post', '/shutdown'],
      ['get', '/registry/search'],
      ['post', '/registry/install'],
      ['get', '/skills'],
      ['post', '/skills/{name}/enable'],
      ['post', '/skills/{name}/disable'],
      ['get', '/plugins'],
      ['post', '/tools/call'],
      ['get', '/tools/search'],
      ['post', '/resources/read'],
      ['post', '/prompts/get'],
      ['get', '/tools/pending'],
      ['get', '/prompts/pending'],
      ['post', '/tools/{name}/approve'],
      ['post', '/prompts/{name}/approve'],
      ['post', '/authorization/check'],
      ['get', '/session'],
      ['post', '/session'],
      ['delete', '/session'],
      ['get', '/audit'],
      ['get', '/config'],
      ['post', '/config/validate'],
      ['get', '/backends/{name}/stderr'],
      ['get', '/clients'],
      ['delete', '/backends/{name}/users/{id}/token'],
    ];
    for (const [method, path] of expected) expect(paths[`/manage/v1${path}`]?.[method], `${method} ${path}`).toBeDefined();
    expect(Object.keys(paths)).toHaveLength(36);
    expect(paths['/manage/v1/health'].get.security).toEqual([]);
    expect(paths['/manage/v1/status'].get.security).toBeUndefined();
    expect(res.body.security).toEqual([{ bearerAuth: [] }, { consoleSession: [] }]);
    const events = paths['/manage/v1/events'].get;
    expect(events.parameters.map((p: { name: string }) => p.name)).toEqual(['limit', 'since', 'severity']);
    expect(events.parameters[0].schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000, default: 100 });
    expect(events.responses['200'].content['application/json'].schema.properties.events.type).toBe('array');
    expect(events.responses['400'].content['application/json'].schema.required).toEqual(['error', 'message', 'details']);
    const call = paths['/manage/v1/tools/call'].post;
    expect(call.requestBody.content['application/json'].schema.required).toEqual(['tool', 'arguments']);
    expect(Object.keys(call.responses).sort()).toEqual(['200', '400', '401', '403', '404', '500', '502', '503']);
    expect(paths['/manage/v1/reconnect/{name}'].post.parameters[0]).toMatchObject({ name: 'name', in: 'path', required: true });
  });

  describe('GET /openapi.json: what a client generator relies on', () => {
    type Operation = {
      operationId?: string;
      summary?: string;
      tags?: string[];
      security?: unknown[];
      parameters?: Array<{ name: string; in: string; required: boolean; description?: string; schema: Record<string, unknown> }>;
      requestBody?: { required: boolean };
      responses: Record<string, { description: string; content?: Record<string, { schema: Record<string, unknown> }> }>;
    };
    let doc: { info: Record<string, string>; components: Record<string, unknown>; paths: Record<string, Record<string, Operation>> };
    let operations: Array<{ method: string; path: string; op: Operation }>;
    beforeAll(async () => {
      doc = (await api.get('/openapi.json')).body;
      operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ method, path, op })));
    });

    it('names every operation once, after its method and path', () => {
      expect(operations).toHaveLength(38);
      const ids = operations.map(({ op }) => op.operationId);
      expect(
        ids.every((id) => typeof id === 'string' && /^(get|post|delete)[A-Z]\w+$/.test(id)),
        ids.join(', '),
      ).toBe(true);
      expect(new Set(ids).size).toBe(ids.length);
      expect(doc.paths['/manage/v1/skills/{name}/enable']!.post!.operationId).toBe('postSkillsNameEnable');
      expect(doc.paths['/manage/v1/events/stream']!.get!.operationId).toBe('getEventsStream');
      for (const { op } of operations) expect(op.summary && op.tags?.length, op.operationId).toBeTruthy();
    });

    it('public exactly where the auth hook lets requests through: /health and /ready, without a 401', () => {
      const open = operations.filter(({ op }) => op.security !== undefined);
      // The console's sign-in is public too: it is where a credential is presented (a wrong one is its own 401).
      expect(open.map(({ path, method }) => `${method} ${path}`)).toEqual([
        'get /manage/v1/health',
        'get /manage/v1/ready',
        'get /manage/v1/session',
        'post /manage/v1/session',
        'delete /manage/v1/session',
      ]);
      for (const { op, path, method } of open) {
        expect(op.security).toEqual([]);
        if (!(path === '/manage/v1/session' && method === 'post')) expect(op.responses['401']).toBeUndefined();
      }
      for (const { op } of operations.filter(({ op }) => op.security === undefined)) expect(op.responses['401'], op.operationId).toBeDefined();
      expect(doc.components.securitySchemes).toMatchObject({
        bearerAuth: { type: 'http', scheme: 'bearer' },
        consoleSession: { type: 'apiKey', in: 'cookie', name: 'gw_console' },
      });
    });

    it('describes every answer; error bodies are the spec body', () => {
      for (const { op } of operations) {
        for (const [status, response] of Object.entries(op.responses)) {
          expect(response.description, `${op.operationId} ${status}`).toMatch(/\w/);
          expect(response.description, `${op.operationId} ${status}`).not.toBe('Default Response');
          // /ready's 503 is the readiness body, not an error.
          if (Number(status) >= 400 && op.operationId !== 'getReady')
            expect(response.content?.['application/json']?.schema.required).toEqual(['error', 'message', 'details']);
        }
      }
      expect(doc.paths['/manage/v1/status']!.get!.responses['200']!.description).toBe('Success');
      expect(doc.paths['/manage/v1/ready']!.get!.responses['503']!.description).toBe('Not ready');
    });

    it('the event stream answers text/event-stream, not JSON', () => {
      const ok = doc.paths['/manage/v1/events/stream']!.get!.responses['200']!;
      expect(ok.description).toBe('Event stream');
      expect(ok.content).toEqual({ 'text/event-stream': { schema: { type: 'string' } } });
    });

    it('a body is required only when its schema requires a field (an absent body counts as {})', () => {
      const bodies = operations.filter(({ op }) => op.requestBody).map(({ path, op }) => [path, op.requestBody!.required]);
      expect(Object.fromEntries(bodies)).toEqual({
        '/manage/v1/shutdown': false,
        '/manage/v1/registry/install': true,
        '/manage/v1/tools/call': true,
        '/manage/v1/resources/read': true,
        '/manage/v1/prompts/get': true,
        '/manage/v1/tools/{name}/approve': false,
        '/manage/v1/prompts/{name}/approve': false,
        '/manage/v1/authorization/check': true,
        '/manage/v1/reload': false,
        '/manage/v1/session': true,
        '/manage/v1/config/validate': true,
      });
    });

    it('query parameters carry their description beside the schema, not in it', () => {
      const since = doc.paths['/manage/v1/events']!.get!.parameters!.find((p) => p.name === 'since')!;
      expect(since).toMatchObject({ in: 'query', required: false, description: 'ISO 8601; only events strictly after it.' });
      expect(since.schema).toEqual({ type: 'string' });
      const q = doc.paths['/manage/v1/registry/search']!.get!.parameters!.find((p) => p.name === 'q')!;
      expect(q).toMatchObject({ in: 'query', required: true });
    });

    it('a query parameter with a default is optional (GET /events without limit is fine)', async () => {
      const limit = doc.paths['/manage/v1/events']!.get!.parameters!.find((p) => p.name === 'limit')!;
      expect(limit).toMatchObject({ required: false, schema: { default: 100 } });
      expect((await api.get('/events')).status).toBe(200);
      const withDefault = operations.flatMap(({ op }) => (op.parameters ?? []).filter((p) => p.schema.default !== undefined));
      expect(withDefault.map((p) => p.name)).toEqual(['events_limit', 'limit', 'limit', 'limit', 'limit']);
      for (const p of withDefault) expect(p.required, p.name).toBe(false);
    });

    it('the API index lists the same operations, in the same order', async () => {
      const index = await fetch(`${h.url}/manage/v1`).then((r) => r.json() as Promise<{ endpoints: Array<{ method: string; path: string; summary: string }> }>);
      expect(index.endpoints).toEqual(operations.map(({ method, path, op }) => ({ method: method.toUpperCase(), path, summary: op.summary })));
      expect(doc.info).toMatchObject({ title: 'MCP gateway management API', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    });
  });

  // Last: a reconnect briefly takes h's capabilities out of the registry.
  it('POST /reconnect/{name} reconnects a backend', async () => {
    const res = await api.post('/reconnect/h');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: 'h', reconnected: true, error: null });
  });
});
