/**
 * Registry search and install through a real gateway, against local fake
 * registries: GET /registry/search (fallback over a failing registry,
 * restriction by name, 502 when the named one fails), and POST
 * /registry/install end to end: a streamable-http remote pointing at a real
 * fixture server is written to the config file (comments kept), reloaded
 * and then called; a conflicting name is 409 with the file untouched; an npm
 * package is written as a stdio backend without hot reload.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { managementClient, expectError, expectKeys } from '../../../helpers/management-client.js';
import { startHttpFixture, type HttpFixture } from '../../../fixtures/spawn.js';
import { sampleServers, startFakeRegistry, type FakeRegistry } from '../../../helpers/fake-registry.js';
import { waitFor } from '../../../helpers/wait.js';
import { CLIENT_BIN, runBin } from '../../../helpers/cli-run.js';

const TOKEN = 'registry-token-0123456789';
const ENTRY_KEYS = ['name', 'description', 'transport', 'url', 'command', 'args', 'version', 'categories'];
/** Clears the screen and sets the terminal title when printed raw; CSI as one C1 character too. */
const HOSTILE_DESCRIPTION = 'Wipes\x1b[2J\x1b]0;pwned\x07 the \u009b2J screen';
const SCREEN_WIPER = { server: { name: 'com.example/screen-wiper', description: HOSTILE_DESCRIPTION, version: '1.0.0' } };
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

describe('registry search and install with hot reload', () => {
  let remote: HttpFixture;
  let failing: FakeRegistry;
  let official: FakeRegistry;
  let h: Harness;
  let api: ReturnType<typeof managementClient>;

  beforeAll(async () => {
    remote = await startHttpFixture({ transport: 'streamable-http', name: 'weather' });
    failing = await startFakeRegistry({ failWith: 500 });
    official = await startFakeRegistry({ servers: [...sampleServers({ remoteUrl: remote.url }), SCREEN_WIPER], token: TOKEN });
    h = await startGateway({
      registries: [
        { name: 'mirror', url: failing.url, timeout_s: 2 },
        { name: 'official', url: official.url, token: TOKEN },
      ],
      feature_flags: { hot_reload: true },
      controller: { reload_debounce_ms: 50 },
    });
    api = managementClient(h.url);
  });
  afterAll(async () => {
    await h?.close();
    await Promise.all([remote?.stop(), failing?.close(), official?.close()]);
  });

  it('GET /registry/search passes over the failing registry and maps entries to spec 2.7', async () => {
    const res = await api.get('/registry/search?q=weather&limit=3');
    expect(res.status).toBe(200);
    expectKeys(res.body, ['servers', 'registry', 'total']);
    expect(res.body.registry).toBe('official');
    expect(res.body.total).toBe(3);
    for (const s of res.body.servers) expectKeys(s, ENTRY_KEYS);
    expect(res.body.servers[0]).toEqual({
      name: 'io.github.acme/weather-npm',
      description: 'Weather forecasts (npm package)',
      transport: 'stdio',
      url: '',
      command: 'npx',
      args: ['-y', '@acme/weather-mcp@1.2.0', 'serve', '--units', 'metric'],
      version: '1.2.0',
      categories: ['weather', 'forecast'],
    });
    expect(failing.requests.length).toBeGreaterThan(0);
    expect(failing.requests.every((r) => r.authorization === undefined)).toBe(true);
    expect(official.requests.every((r) => r.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  it('restricting to the failing registry is a 502 with its reason; an unknown one a 404', async () => {
    const res = await api.get('/registry/search?q=weather&registry=mirror');
    expectError(res, 502, 'registry_unavailable');
    expect(res.body.details.failures).toEqual([{ registry: 'mirror', error: expect.stringMatching(/^HTTP 500/) }]);
    expectError(await api.get('/registry/search?q=weather&registry=nope'), 404, 'registry_not_found');
    expectError(await api.get('/registry/search?q=weather&limit=101'), 400, 'bad_request');
    expectError(await api.get('/registry/search?q=we%2Fther'), 400, 'bad_request');
  });

  it('a search that finds nothing anywhere the failing one aside is still a 502; with only healthy empty registries a 200', async () => {
    expectError(await api.get('/registry/search?q=zzzz'), 502, 'registry_unavailable');
    const empty = await api.get('/registry/search?q=zzzz&registry=official');
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ servers: [], registry: 'official', total: 0 });
  });

  it('POST /registry/install writes a remote as a backend, keeps the comments, reloads, and the tools can be called', async () => {
    // A long hand-written flow list stays on its line: no re-wrapping of what the install did not touch.
    const longList = "  allowed_hosts: [ 'localhost', '127.0.0.1', '[::1]', 'gateway.internal.example.com', 'gateway.example.com' ]";
    const written = readFileSync(h.configPath, 'utf8').replace(/^server:\n/m, `server:\n${longList}\n`);
    expect(written).toContain(longList);
    const before = `# hand-written comment that must survive\n${written}`;
    writeFileSync(h.configPath, before);
    const res = await api.post('/registry/install', { name: 'io.github.acme/weather-remote' });
    expect(res.status, res.text).toBe(201);
    expectKeys(res.body, ['backend', 'entry', 'reload']);
    expect(res.body.backend).toBe('weather-remote');
    expect(res.body.entry).toEqual({
      name: 'io.github.acme/weather-remote',
      description: 'Weather (hosted, streamable HTTP)',
      transport: 'streamable-http',
      url: remote.url,
      command: '',
      args: [],
      version: '2.0.0',
      categories: [],
    });
    expect(res.body.reload).toEqual({ reloaded: true, backends_added: ['weather-remote'], backends_removed: [], backends_changed: [], errors: [] });

    const text = readFileSync(h.configPath, 'utf8');
    expect(text.startsWith('# hand-written comment that must survive\n')).toBe(true);
    expect(text).toContain('# installed from registry official: io.github.acme/weather-remote 2.0.0\n');
    expect(text).toContain(`${longList}\n`);
    expect(parse(text).backends['weather-remote']).toEqual({ type: 'streamable-http', url: remote.url });

    const call = await waitFor(async () => {
      const r = await api.post('/tools/call', { tool: 'weather-remote_echo', arguments: { text: 'sunny' } });
      return r.status === 200 ? r : undefined;
    }, 'the installed backend to serve its tools');
    expect(call.body).toEqual({
      tool: 'weather-remote_echo',
      backend: 'weather-remote',
      content: [{ type: 'text', text: 'sunny' }],
      structuredContent: { text: 'sunny' },
      isError: false,
      call_id: expect.any(String),
    });
    const client = await h.connect();
    const whoami = await client.callTool({ name: 'weather-remote_whoami', arguments: {} });
    expect(JSON.parse((whoami.content as Array<{ text: string }>)[0].text)).toMatchObject({ name: 'weather', pid: remote.pid });
  });

  it('installing under a taken name is 409 and leaves the file untouched; gateway-client names its flag', async () => {
    const before = readFileSync(h.configPath, 'utf8');
    expectError(await api.post('/registry/install', { name: 'io.github.acme/weather-remote' }), 409, 'backend_exists');
    expect(readFileSync(h.configPath, 'utf8')).toBe(before);
    const cli = await runBin(CLIENT_BIN, ['-s', h.url, 'registry', 'install', 'io.github.acme/weather-remote']);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toMatch(/^Error 409 backend_exists: A backend named 'weather-remote' is already in .*; choose another name\n/);
    expect(cli.stderr).toContain('Hint: install it under another name with --backend-name NAME\n');
    expect(cli.stderr).not.toContain('(backend_name)');
    expect(readFileSync(h.configPath, 'utf8')).toBe(before);
  });

  it('gateway-client shows a registry description without control characters in a table, exactly in JSON and YAML', async () => {
    const table = await runBin(CLIENT_BIN, ['-s', h.url, '-o', 'table', 'registry', 'search', 'screen']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^NAME +VERSION +TRANSPORT +DESCRIPTION\ncom\.example\/screen-wiper +1\.0\.0 +Wipes/);
    expect(table.stdout).not.toMatch(CONTROL);
    const readers: Array<[string, (text: string) => any]> = [
      ['json', JSON.parse],
      ['yaml', parse],
    ];
    for (const [format, read] of readers) {
      const out = await runBin(CLIENT_BIN, ['-s', h.url, '-o', format, 'registry', 'search', 'screen']);
      expect(out.stdout, format).not.toMatch(CONTROL);
      expect(read(out.stdout).servers[0].description, format).toBe(HOSTILE_DESCRIPTION);
    }
  });

  it('refuses entries it cannot find or run, and bad bodies', async () => {
    const before = readFileSync(h.configPath, 'utf8');
    // Not found in the healthy registry, but the failing one might have it: 502, as for search.
    expectError(await api.post('/registry/install', { name: 'io.github.acme/none' }), 502, 'registry_unavailable');
    expectError(await api.post('/registry/install', { name: 'io.github.acme/none', registry: 'official' }), 404, 'registry_entry_not_found');
    expectError(await api.post('/registry/install', { name: 'com.example/weather-empty' }), 422, 'registry_entry_not_installable');
    expectError(await api.post('/registry/install', { name: 'io.github.acme/weather-remote', registry: 'nope' }), 404, 'registry_not_found');
    expectError(await api.post('/registry/install', { name: 'io.github.acme/weather-remote', backend_name: '-bad name' }), 400, 'bad_request');
    expectError(await api.post('/registry/install', {}), 400, 'bad_request');
    expect(readFileSync(h.configPath, 'utf8')).toBe(before);
  });
});

describe('registry install without hot reload', () => {
  let official: FakeRegistry;
  let h: Harness;
  let api: ReturnType<typeof managementClient>;

  beforeAll(async () => {
    official = await startFakeRegistry({ servers: sampleServers() });
    h = await startGateway({ registries: [{ name: 'official', url: official.url }] });
    api = managementClient(h.url);
  });
  afterAll(async () => {
    delete process.env.WEATHER_API_KEY;
    await h?.close();
    await official?.close();
  });

  it('an npm package needing an unset variable is refused with the reason; once set, it is written as a stdio backend and not started', async () => {
    delete process.env.WEATHER_API_KEY;
    const before = readFileSync(h.configPath, 'utf8');
    const refused = await api.post('/registry/install', { name: 'io.github.acme/weather-npm', backend_name: 'weather' });
    expectError(refused, 400, 'config_invalid');
    expect(refused.body.message).toMatch(/backends\.weather\.env\.WEATHER_API_KEY.*environment variable WEATHER_API_KEY is not set/);
    expect(readFileSync(h.configPath, 'utf8')).toBe(before);

    process.env.WEATHER_API_KEY = 'weather-key-for-tests-0123';
    const res = await api.post('/registry/install', { name: 'io.github.acme/weather-npm', backend_name: 'weather' });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ backend: 'weather', reload: null, entry: { command: 'npx', transport: 'stdio' } });
    expect(parse(readFileSync(h.configPath, 'utf8')).backends.weather).toEqual({
      type: 'stdio',
      command: 'npx',
      args: ['-y', '@acme/weather-mcp@1.2.0', 'serve', '--units', 'metric'],
      env: { WEATHER_API_KEY: '${WEATHER_API_KEY}', WEATHER_REGION: '${WEATHER_REGION:-eu}' },
    });
    // Hot reload is off: the running gateway does not know the new backend until restarted.
    expectError(await api.post('/reconnect/weather'), 404, 'backend_not_found');
  });
});
