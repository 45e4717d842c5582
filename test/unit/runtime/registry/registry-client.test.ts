/**
 * The registry client against local fake registries speaking API v0.1:
 * mapping to spec 2.7 for every package type and remotes, cursor following,
 * the order in which registries are tried (failing, slow, empty, garbled),
 * per-registry tokens, the 5-minute cache, lookups; the install mapping and
 * the comment-preserving config edit.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { RegistryClient, type RegistrySettings } from '../../../../runtime/registry/registry-client.js';
import { defaultBackendName, installSpecOf, toRegistryEntry } from '../../../../runtime/registry/registry-entry.js';
import { addBackendToConfigFile } from '../../../../runtime/registry/config-install.js';
import { parseConfigText } from '../../../../controller/config/config-loader.js';
import { createLogger, silentLogger } from '../../../../runtime/observability/logging/logger.js';
import { Redactor } from '../../../../runtime/observability/logging/redactor.js';
import { freePort } from '../../../helpers/ports.js';
import { manyServers, sampleServers, startFakeRegistry, type FakeRegistry } from '../../../helpers/fake-registry.js';

const fakes: FakeRegistry[] = [];
afterAll(async () => {
  await Promise.all(fakes.map((f) => f.close()));
});

async function fake(opts: Parameters<typeof startFakeRegistry>[0] = {}): Promise<FakeRegistry> {
  const f = await startFakeRegistry({ servers: sampleServers(), ...opts });
  fakes.push(f);
  return f;
}

const client = (registries: RegistrySettings[]) => new RegistryClient(() => registries, silentLogger());
const server = (name: string) => sampleServers().find((s) => s.server.name === name && s._meta?.['io.modelcontextprotocol.registry/official'])!;

describe('mapping to spec 2.7', () => {
  it.each([
    [
      'io.github.acme/weather-npm',
      {
        transport: 'stdio',
        url: '',
        command: 'npx',
        args: ['-y', '@acme/weather-mcp@1.2.0', 'serve', '--units', 'metric'],
        version: '1.2.0',
        categories: ['weather', 'forecast'],
      },
    ],
    ['io.github.acme/weather-py', { transport: 'stdio', url: '', command: 'uvx', args: ['weather-mcp@0.5.0'], version: '0.5.0', categories: ['weather'] }],
    [
      'io.github.acme/weather-docker',
      { transport: 'stdio', url: '', command: 'docker', args: ['run', '-i', '--rm', 'docker.io/acme/weather-mcp:1.0.0'], version: '1.0.0', categories: [] },
    ],
    ['io.github.acme/weather-dotnet', { transport: 'stdio', url: '', command: 'dnx', args: ['Acme.WeatherMcp@0.4.0'], version: '0.4.0', categories: [] }],
    [
      'io.github.acme/weather-remote',
      { transport: 'streamable-http', url: 'https://weather.example.com/mcp', command: '', args: [], version: '2.0.0', categories: [] },
    ],
    ['com.example/weather-sse', { transport: 'sse', url: 'https://mcp.example.com/sse', command: '', args: [], version: '3.0.0', categories: [] }],
    ['com.example/weather-empty', { transport: '', url: '', command: '', args: [], version: '0.0.1', categories: [] }],
  ])('%s', (name, expected) => {
    const s = server(name);
    expect(toRegistryEntry(s)).toEqual({ name, description: s.server.description, ...expected });
  });

  it('an image with a tag is used as is', () => {
    const entry = toRegistryEntry({ server: { name: 'x/y', packages: [{ registryType: 'oci', identifier: 'ghcr.io/a/b:2.1', version: '9' }] } });
    expect(entry.args).toEqual(['run', '-i', '--rm', 'ghcr.io/a/b:2.1']);
  });
});

describe('install mapping', () => {
  it('a package becomes a stdio backend; required variables become ${VAR} references', () => {
    expect(installSpecOf(server('io.github.acme/weather-npm').server)).toEqual({
      type: 'stdio',
      command: 'npx',
      args: ['-y', '@acme/weather-mcp@1.2.0', 'serve', '--units', 'metric'],
      env: { WEATHER_API_KEY: '${WEATHER_API_KEY}', WEATHER_REGION: '${WEATHER_REGION:-eu}' },
    });
  });
  it('a remote becomes a streamable-http or sse backend with its url and fixed headers', () => {
    expect(installSpecOf(server('io.github.acme/weather-remote').server)).toEqual({ type: 'streamable-http', url: 'https://weather.example.com/mcp' });
    expect(installSpecOf(server('com.example/weather-sse').server)).toEqual({ type: 'sse', url: 'https://mcp.example.com/sse', headers: { 'X-Region': 'eu' } });
  });
  it('an entry with nothing to run is refused', () => {
    expect(() => installSpecOf(server('com.example/weather-empty').server)).toThrow(
      expect.objectContaining({ code: 'registry_entry_not_installable', message: expect.stringMatching(/weather-empty' has no stdio package/) }),
    );
  });
  it.each([
    ['io.github.acme/weather-npm', 'weather-npm'],
    ['com.example/My Server!', 'My-Server-'],
    ['org/__x', 'x'],
    ['org/42', 'server-42'],
    ['single', 'single'],
  ])('backend name for %s is %s', (name, expected) => {
    expect(defaultBackendName(name)).toBe(expected);
  });
});

describe('search', () => {
  it('follows nextCursor until the limit, asking only for what is still missing', async () => {
    const f = await fake({ servers: manyServers(75), pageSize: 20 });
    const res = await client([{ name: 'bulk', url: f.url }]).search('tool', 70);
    expect(res.registry).toBe('bulk');
    expect(res.total).toBe(70);
    expect(res.servers.map((s) => s.name)).toEqual(manyServers(70).map((s) => s.server.name));
    expect(f.requests.map((r) => [r.query.limit, r.query.cursor !== undefined, r.query.version, r.query.search])).toEqual([
      ['70', false, 'latest', 'tool'],
      ['50', true, 'latest', 'tool'],
      ['30', true, 'latest', 'tool'],
      ['10', true, 'latest', 'tool'],
    ]);
  });

  it('stops at the end of the results', async () => {
    const f = await fake({ servers: manyServers(45, 'pager'), pageSize: 20 });
    const res = await client([{ name: 'bulk', url: f.url }]).search('pager', 100);
    expect(res.total).toBe(45);
    expect(f.requests.map((r) => r.query.limit)).toEqual(['100', '80', '60']);
  });

  it('excludes older versions and maps every kind', async () => {
    const f = await fake();
    const res = await client([{ name: 'one', url: f.url }]).search('weather', 20);
    expect(res.servers.map((s) => s.name)).toEqual([
      'io.github.acme/weather-npm',
      'io.github.acme/weather-py',
      'io.github.acme/weather-docker',
      'io.github.acme/weather-dotnet',
      'io.github.acme/weather-remote',
      'com.example/weather-sse',
      'com.example/weather-empty',
    ]);
    expect(res.servers[0].version).toBe('1.2.0');
  });

  it('tries registries in order: failing, slow, garbled and empty ones pass to the next; the first with results names itself', async () => {
    const failing = await fake({ failWith: 500 });
    const slow = await fake({ delayMs: 3000 });
    const garbled = await fake({ garbage: true });
    const empty = await fake({ servers: [] });
    const good = await fake();
    const logs: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        logs.push(
          ...String(chunk)
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l).msg as string),
        );
        cb();
      },
    });
    const c = new RegistryClient(
      () => [
        { name: 'failing', url: failing.url },
        { name: 'slow', url: slow.url, timeout_s: 0.2 },
        { name: 'garbled', url: garbled.url },
        { name: 'empty', url: empty.url },
        { name: 'good', url: good.url },
      ],
      createLogger({ level: 'warn', destination: sink, redactor: new Redactor() }),
    );
    const res = await c.search('weather', 2);
    expect(res).toMatchObject({ registry: 'good', total: 2 });
    expect(res.servers.map((s) => s.name)).toEqual(['io.github.acme/weather-npm', 'io.github.acme/weather-py']);
    expect(logs).toEqual(['registry failing failed; trying the next', 'registry slow failed; trying the next', 'registry garbled failed; trying the next']);
    expect(empty.requests).toHaveLength(1);
  });

  it('all failing: 502 registry_unavailable naming each reason', async () => {
    const failing = await fake({ failWith: 503 });
    const slow = await fake({ delayMs: 3000 });
    const closed = await freePort();
    const err = await client([
      { name: 'a', url: failing.url },
      { name: 'b', url: slow.url, timeout_s: 0.2 },
      { name: 'c', url: `http://127.0.0.1:${closed}` },
    ])
      .search('weather', 5)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'registry_unavailable' });
    const { failures } = (err as { details: { failures: Array<{ registry: string; error: string }> } }).details;
    expect(failures.map((f) => f.registry)).toEqual(['a', 'b', 'c']);
    expect(failures[0].error).toMatch(/^HTTP 503 from http:\/\/127\.0\.0\.1:\d+\/v0\.1\/servers$/);
    expect(failures[1].error).toBe('no answer within 0.2 s');
    expect(failures[2].error).toMatch(new RegExp(`^cannot reach http://127\\.0\\.0\\.1:${closed}: .*ECONNREFUSED`));
    expect((err as Error).message).toMatch(/^No registry could answer \(a: HTTP 503.*; b: no answer within 0\.2 s; c: cannot reach/);
  });

  it('none failing and none finding anything: an empty answer', async () => {
    const empty = await fake({ servers: [] });
    expect(await client([{ name: 'e', url: empty.url }]).search('nothing', 5)).toEqual({ servers: [], registry: '', total: 0 });
    expect(await client([{ name: 'e', url: empty.url }]).search('nothing', 5, 'e')).toEqual({ servers: [], registry: 'e', total: 0 });
  });

  it('a registry restricted by name is the only one asked; unknown or none configured is registry_not_found', async () => {
    const a = await fake();
    const b = await fake();
    const c = client([
      { name: 'a', url: a.url },
      { name: 'b', url: b.url },
    ]);
    expect((await c.search('weather', 1, 'b')).registry).toBe('b');
    expect(a.requests).toHaveLength(0);
    await expect(c.search('weather', 1, 'zzz')).rejects.toMatchObject({
      code: 'registry_not_found',
      details: { registry: 'zzz' },
      message: expect.stringMatching(/configured: a, b/),
    });
    await expect(client([]).search('weather', 1)).rejects.toMatchObject({ code: 'registry_not_found' });
  });

  it("sends each registry's token to that registry only", async () => {
    const open = await fake({ servers: [] });
    const locked = await fake({ token: 'registry-token-123456' });
    const res = await client([
      { name: 'open', url: open.url },
      { name: 'locked', url: locked.url, token: 'registry-token-123456' },
    ]).search('weather', 3);
    expect(res.registry).toBe('locked');
    expect(open.requests.map((r) => r.authorization)).toEqual([undefined]);
    expect(locked.requests.map((r) => r.authorization)).toEqual(['Bearer registry-token-123456']);
    const wrong = await client([{ name: 'locked', url: locked.url, token: 'wrong-token-0000000' }])
      .search('weather', 3)
      .catch((e: unknown) => e);
    expect(wrong).toMatchObject({ code: 'registry_unavailable', message: expect.stringMatching(/HTTP 401/) });
  });

  it('a base URL with a path prefix works', async () => {
    const f = await fake({ prefix: '/mirror/registry' });
    expect((await client([{ name: 'm', url: `${f.url}/` }]).search('weather', 1)).total).toBe(1);
    expect(f.requests[0].path).toBe('/mirror/registry/v0.1/servers');
  });

  it('caches answers per (registry, q, limit)', async () => {
    const f = await fake();
    const c = client([{ name: 'one', url: f.url }]);
    const first = await c.search('weather', 3);
    expect(await c.search('weather', 3)).toEqual(first);
    expect(f.requests).toHaveLength(1);
    await c.search('weather', 4);
    await c.search('npm', 3);
    expect(f.requests).toHaveLength(3);
  });
});

describe('lookup', () => {
  it('finds the latest version in the first registry that has it', async () => {
    const empty = await fake({ servers: [] });
    const full = await fake();
    const c = client([
      { name: 'empty', url: empty.url },
      { name: 'full', url: full.url },
    ]);
    const found = await c.lookup('io.github.acme/weather-npm');
    expect(found.registry).toBe('full');
    expect(found.server.server.version).toBe('1.2.0');
    expect(full.requests[0].path).toBe('/v0.1/servers/io.github.acme%2Fweather-npm/versions/latest');
    await expect(c.lookup('io.github.acme/nope')).rejects.toMatchObject({ code: 'registry_entry_not_found' });
  });
});

describe('adding a backend to the config file', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gw-install-'));
  });
  const original = `# My gateway
version: "1"
backends:
  # the files backend
  files:
    type: stdio
    command: echo   # keep me
    args: ['a', 'b']
    env: {KEY: "v"}
  # old:
  #   type: sse
feature_flags: { hot_reload: true }
`;
  const path = () => join(dir, 'config.yaml');
  afterEach(() => writeFileSync(path(), original));
  const add = (name: string, spec: Parameters<typeof addBackendToConfigFile>[0]['spec'], comment?: string) =>
    addBackendToConfigFile({ filePath: path(), name, spec, comment, validate: (text) => void parseConfigText(text) });
  /** `text` with `inserted` placed at `at`: everything else must come back byte for byte. */
  const insertedAt = (text: string, at: string, inserted: string) => {
    const i = text.indexOf(at);
    expect(i, `"${at}" in the original`).toBeGreaterThanOrEqual(0);
    return text.slice(0, i) + inserted + text.slice(i);
  };

  it('inserts the backend after the last one and keeps every other byte of the file', async () => {
    writeFileSync(path(), original);
    await add(
      'weather',
      { type: 'stdio', command: 'npx', args: ['-y', '@acme/weather-mcp@1.2.0'] },
      'installed from registry one: io.github.acme/weather-npm 1.2.0',
    );
    const text = readFileSync(path(), 'utf8');
    expect(text).toBe(
      insertedAt(
        original,
        '  # old:',
        `  # installed from registry one: io.github.acme/weather-npm 1.2.0
  weather:
    type: stdio
    command: npx
    args: [-y, "@acme/weather-mcp@1.2.0"]
`,
      ),
    );
    expect(parse(text).backends.weather.args).toEqual(['-y', '@acme/weather-mcp@1.2.0']);
  });

  it("follows the file's indentation, and its line endings", async () => {
    const fourSpaces = 'backends:\n    files:\n        type: stdio\n        command: echo\n';
    writeFileSync(path(), fourSpaces);
    await add('r', { type: 'sse', url: 'http://127.0.0.1:1/sse', headers: { A: 'b' } });
    expect(readFileSync(path(), 'utf8')).toBe(
      `${fourSpaces}    r:\n        type: sse\n        url: http://127.0.0.1:1/sse\n        headers:\n            A: b\n`,
    );

    const crlf = 'backends:\r\n  files:\r\n    type: stdio\r\n    command: echo\r\nversion: "1"\r\n';
    writeFileSync(path(), crlf);
    await add('r', { type: 'sse', url: 'http://127.0.0.1:1/sse' });
    expect(readFileSync(path(), 'utf8')).toBe(insertedAt(crlf, 'version', '  r:\r\n    type: sse\r\n    url: http://127.0.0.1:1/sse\r\n'));
  });

  it('a file without a final newline, and a flow mapping of backends, keep their text too', async () => {
    writeFileSync(path(), 'backends:\n  files: { type: stdio, command: echo }');
    await add('r', { type: 'sse', url: 'http://x/sse' });
    expect(readFileSync(path(), 'utf8')).toBe('backends:\n  files: { type: stdio, command: echo }\n  r:\n    type: sse\n    url: http://x/sse\n');

    writeFileSync(path(), 'backends: { files: { type: stdio, command: echo } }  # one\nversion: "1"\n');
    await add('r', { type: 'stdio', command: 'npx', args: ['-y', 'pkg'] });
    const text = readFileSync(path(), 'utf8');
    expect(text).toBe('backends: { files: { type: stdio, command: echo }, r: { type: stdio, command: npx, args: [ -y, pkg ] } }  # one\nversion: "1"\n');
    expect(parse(text).backends.r).toEqual({ type: 'stdio', command: 'npx', args: ['-y', 'pkg'] });
  });

  it('an existing name is backend_exists and the file is untouched', async () => {
    writeFileSync(path(), original);
    await expect(add('files', { type: 'sse', url: 'http://x' })).rejects.toMatchObject({
      code: 'backend_exists',
      // The hint names no parameter: the API calls it backend_name, gateway-client --backend-name.
      message: `A backend named 'files' is already in ${path()}; choose another name`,
    });
    expect(readFileSync(path(), 'utf8')).toBe(original);
  });

  it('a result that would not load is config_invalid and the file is untouched', async () => {
    writeFileSync(path(), original);
    delete process.env.WEATHER_KEY_FOR_TEST;
    await expect(add('weather', { type: 'stdio', command: 'npx', env: { KEY: '${WEATHER_KEY_FOR_TEST}' }, args: [] })).rejects.toMatchObject({
      code: 'config_invalid',
      message: expect.stringMatching(/backends\.weather\.env\.KEY.*WEATHER_KEY_FOR_TEST is not set/),
    });
    expect(readFileSync(path(), 'utf8')).toBe(original);
    writeFileSync(path(), 'backends: [a, b]\n');
    await expect(add('r', { type: 'sse', url: 'http://x/sse' })).rejects.toMatchObject({ code: 'config_invalid' });
    expect(readFileSync(path(), 'utf8')).toBe('backends: [a, b]\n');
  });

  it('an empty or missing backends section gets a block mapping', async () => {
    const sse = { type: 'sse' as const, url: 'http://127.0.0.1:1/sse' };
    const block = '  r:\n    type: sse\n    url: http://127.0.0.1:1/sse\n';
    for (const [before, after] of [
      ['version: "1"\nbackends: {}\n', `version: "1"\nbackends:\n${block}`],
      [
        "version: '1'\nbackends: {}   # none yet\nserver: { allowed_origins: ['http://a'] }\n",
        `version: '1'\nbackends:    # none yet\n${block}server: { allowed_origins: ['http://a'] }\n`,
      ],
      ['backends: # none yet\nversion: "1"\n', `backends: # none yet\n${block}version: "1"\n`],
      ['backends: ~  \r\n', `backends:\r\n${block.replace(/\n/g, '\r\n')}`],
      ['backends:\nversion: "1"\n', `backends:\n${block}version: "1"\n`],
      ['backends: null\n', `backends:\n${block}`],
      ['# only a comment\nversion: "1"\n', `# only a comment\nversion: "1"\nbackends:\n${block}`],
      ['version: "1"', `version: "1"\nbackends:\n${block}`],
    ]) {
      writeFileSync(path(), before);
      await add('r', sse);
      expect(readFileSync(path(), 'utf8'), before).toBe(after);
    }
  });
});
