/**
 * The `gateway` command line, as a user runs it: the compiled entry point
 * (`node dist/cli/gateway.js`) spawned as a real process, and `npx gateway`.
 */
import { describe, it, expect, afterEach } from 'vitest';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { fixtureCommand, repoRoot } from '../../fixtures/spawn.js';
import { isAlive, waitFor } from '../../helpers/wait.js';

const GATEWAY = join(repoRoot(), 'dist', 'cli', 'gateway.js');
const PKG_VERSION = (JSON.parse(readFileSync(join(repoRoot(), 'package.json'), 'utf8')) as { version: string }).version;

interface Run {
  child: ChildProcess;
  output(): string;
  stderr(): string;
  exited: Promise<number | null>;
  /** Resolves with the first match of `re` in stdout (waits for it). */
  match(re: RegExp): Promise<RegExpMatchArray>;
}

const running: ChildProcess[] = [];
afterEach(() => {
  for (const c of running.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

function run(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Run {
  const child = spawn(process.execPath, [GATEWAY, ...args], {
    cwd: opts.cwd ?? repoRoot(),
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    for (const l of [...listeners]) l();
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    stderr: () => err,
    exited,
    match(re) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = out.match(re);
          if (!m) return;
          listeners.delete(check);
          resolve(m);
        };
        listeners.add(check);
        void exited.then((code) => {
          if (listeners.has(check)) reject(new Error(`gateway exited (${code}) before printing ${re}\nstdout:\n${out}\nstderr:\n${err}`));
        });
        check();
      });
    },
  };
}

function writeYaml(dir: string, file: string, config: unknown): string {
  const path = join(dir, file);
  writeFileSync(path, typeof config === 'string' ? config : stringify(config));
  return path;
}

function fixtureBackend(name: string) {
  const f = fixtureCommand(['--name', name]);
  return { type: 'stdio', command: f.command, args: f.args };
}

/** Every non-empty line of `text`, each parsed as JSON (a line that is not JSON fails the test, naming it). */
function jsonLines(text: string): any[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      try {
        return JSON.parse(l) as unknown;
      } catch {
        throw new Error(`not a JSON line: ${l}`);
      }
    });
}

async function connect(url: string, transport: 'mcp' | 'sse' = 'mcp'): Promise<Client> {
  const client = new Client({ name: 'cli-test', version: '1' });
  await client.connect(transport === 'sse' ? new SSEClientTransport(new URL(url)) : new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

describe('cli: gateway config validate', () => {
  it('exits 0 for a valid file, non-zero listing every problem with key path and line otherwise', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-cli-'));
    const good = writeYaml(dir, 'good.yaml', { backends: { a: fixtureBackend('a'), b: { type: 'sse', url: 'http://127.0.0.1:1/sse' } } });
    const ok = run(['config', 'validate', good]);
    expect(await ok.exited).toBe(0);
    expect(ok.output()).toContain('valid (2 backends)');

    const bad = writeYaml(
      dir,
      'bad.yaml',
      'server:\n  prot: 1\nbackends:\n  a:\n    type: stdio\n    command: node\n    args: ["${GW_CLI_TEST_UNSET}"]\n  b:\n    type: sse\n',
    );
    const ko = run(['config', 'validate', bad]);
    expect(await ko.exited).not.toBe(0);
    // All problems in one run: the unset variable and the schema problems.
    expect(ko.stderr()).toContain('backends.a.args.0 (line 7');
    expect(ko.stderr()).toContain('GW_CLI_TEST_UNSET');
    expect(ko.stderr()).toContain('server.prot (line 2');
    expect(ko.stderr()).toContain('backends.b.url (line 8');

    const bad2 = writeYaml(
      dir,
      'bad2.yaml',
      'server:\n  prot: 1\nbackends:\n  a:\n    type: stdio\n    command: node\n    timeouts: { connect_s: -1 }\n  b:\n    type: sse\n',
    );
    const ko2 = run(['config', 'validate', bad2]);
    expect(await ko2.exited).not.toBe(0);
    for (const expected of ['server.prot (line 2', 'backends.a.timeouts.connect_s (line 7', 'backends.b.url (line 8']) expect(ko2.stderr()).toContain(expected);

    const missing = run(['config', 'validate', join(dir, 'nope.yaml')]);
    expect(await missing.exited).not.toBe(0);
    expect(missing.stderr()).toContain('nope.yaml');
  });
});

describe('cli: gateway server', () => {
  it('serves /mcp and /sse with --config, --host, --port, --log-level, --log-format pretty and -v, prints its URLs and stops cleanly on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-cli-'));
    const cfg = writeYaml(dir, 'my-gateway.yaml', {
      server: { port: 1 },
      audit: { file: join(dir, 'audit.jsonl') },
      backends: { fx: fixtureBackend('fx'), down: { type: 'stdio', command: '/nonexistent/cli-test' } },
    });
    // For a person (a terminal, or asked for): the text banner.
    const gw = run(['server', '--wait', '--config', cfg, '--host', '127.0.0.1', '--port', '0', '--log-level', 'info', '--log-format', 'pretty', '-v']);
    const [, mcpUrl] = await gw.match(/Streamable HTTP\s+(http:\/\/127\.0\.0\.1:\d+\/mcp)\b/);
    const [, sseUrl] = await gw.match(/SSE\s+(http:\/\/127\.0\.0\.1:\d+\/sse)\b/);
    const [, manageUrl] = await gw.match(/Management API\s+(http:\/\/127\.0\.0\.1:\d+\/manage\/v1)\b/);
    const port = new URL(mcpUrl).port;
    expect(port).not.toBe('1'); // --port overrides the config
    expect(new URL(sseUrl).port).toBe(port);
    expect(new URL(manageUrl).port).toBe(port);

    const viaMcp = await connect(mcpUrl);
    const echo = await viaMcp.callTool({ name: 'fx_echo', arguments: { text: 'from the cli' } });
    expect(echo.structuredContent).toEqual({ text: 'from the cli' });
    const { pid } = JSON.parse(((await viaMcp.callTool({ name: 'fx_whoami', arguments: {} })).content as Array<{ text: string }>)[0].text) as { pid: number };
    const viaSse = await connect(sseUrl, 'sse');
    expect((await viaSse.listTools()).tools.map((t) => t.name)).toContain('fx_echo');
    const health = await fetch(`${manageUrl}/health`);
    expect(health.status).toBeLessThan(500);
    // -v: backend connection progress is shown; the backend that cannot start is reported.
    expect(gw.output()).toMatch(/connecting to fx/);
    expect(gw.output()).toMatch(/down failed to connect/);
    // not -vv: no backend process output
    expect(gw.output()).not.toMatch(/serving stdio/);

    await Promise.all([viaMcp.close(), viaSse.close()]);
    gw.child.kill('SIGTERM');
    expect(await gw.exited).toBe(0);
    await waitFor(() => !isAlive(pid), `backend process ${pid} to be gone after the gateway stopped`);
  });

  it('stops cleanly on SIGTERM and SIGINT sent as soon as the banner is out, while a file is being written (write-file-atomic listens for signals then)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-cli-'));
    const cfg = writeYaml(dir, 'gateway.yaml', { server: { port: 0 }, audit: { enabled: false }, backends: {} });
    const preload = pathToFileURL(join(repoRoot(), 'dist', 'test', 'fixtures', 'hold-signal-exit.js')).href;
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const gw = run(['server', '--config', cfg], { env: { NODE_OPTIONS: `--import=${preload}` } });
      await gw.match(/"msg":"listening"/);
      gw.child.kill(signal);
      expect(await gw.exited, `exit code after ${signal} (null: killed by the signal)`).toBe(0);
      expect(gw.output()).toContain('stop requested');
    }
  });

  it('finds config.yaml, else config.yml, in the working directory; -vv shows backend process output', async () => {
    const both = mkdtempSync(join(tmpdir(), 'gw-cli-'));
    writeYaml(both, 'config.yaml', { server: { port: 0 }, audit: { enabled: false }, backends: { fromyaml: fixtureBackend('fromyaml') } });
    writeYaml(both, 'config.yml', { server: { port: 0 }, audit: { enabled: false }, backends: { fromyml: fixtureBackend('fromyml') } });
    const onlyYml = mkdtempSync(join(tmpdir(), 'gw-cli-'));
    writeYaml(onlyYml, 'config.yml', { server: { port: 0 }, audit: { enabled: false }, backends: { fromyml: fixtureBackend('fromyml') } });

    for (const [cwd, expected, flags] of [
      [both, 'fromyaml_echo', ['-vv']],
      [onlyYml, 'fromyml_echo', []],
    ] as const) {
      const gw = run(['server', '--wait', ...flags], { cwd });
      const [, url] = await gw.match(/"mcp_url":"(http:\/\/[^"]+\/mcp)"/);
      const client = await connect(url);
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain(expected);
      expect(names.filter((n) => n.startsWith('from')).every((n) => n.startsWith(expected.split('_')[0]))).toBe(true);
      // The fixture's stderr, shown with -vv (JSON log lines are written in batches: wait for it).
      if (flags.length) expect((await gw.match(/serving stdio/))[0]).toBe('serving stdio');
      else expect(gw.output()).not.toMatch(/connecting to/); // without -v, no connection progress
      await client.close();
      gw.child.kill('SIGTERM');
      expect(await gw.exited).toBe(0);
    }
  });

  it('the example config.yaml shipped in the repository validates and serves as is', async () => {
    const valid = run(['config', 'validate', 'config.yaml']);
    expect(await valid.exited).toBe(0);
    const dir = mkdtempSync(join(tmpdir(), 'gw-cli-'));
    // A copy beside a link to node_modules (its relative backend paths are relative to the config file's folder),
    // on a free port, without writing into the repository.
    const example = readFileSync(join(repoRoot(), 'config.yaml'), 'utf8');
    const cfg = writeYaml(dir, 'example.yaml', example.replace('file: logs/audit.jsonl', `file: ${join(dir, 'audit.jsonl')}`));
    symlinkSync(join(repoRoot(), 'node_modules'), join(dir, 'node_modules'));
    const gw = run(['server', '--wait', '--config', cfg, '--port', '0'], { env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } });
    const [, url] = await gw.match(/"mcp_url":"(http:\/\/[^"]+\/mcp)"/);
    const client = await connect(url);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['everything_echo', 'memory_read_graph', 'memory_create_entities']));
    expect(names.filter((n) => n.startsWith('memory_delete_'))).toEqual([]);
    await client.close();
    gw.child.kill('SIGTERM');
    expect(await gw.exited).toBe(0);
  });

  it('off a terminal (where JSON is the default) every line on stdout and stderr is JSON: log lines, the banner with its URLs, a failure to listen or to load the config', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-cli-'));
    const cfg = writeYaml(dir, 'gateway.yaml', { audit: { enabled: false }, backends: { fx: fixtureBackend('fx') } });
    const gw = run(['server', '--wait', '--config', cfg, '--port', '0', '-vv']);
    // The banner, text ("… is listening") or JSON: it must be JSON.
    const [line] = await gw.match(/^.*(is listening|"msg":"listening").*$/m);
    const [banner] = jsonLines(line);
    expect(banner).toMatchObject({ level: 30, pid: gw.child.pid, msg: 'listening', version: PKG_VERSION, session: expect.stringMatching(/^default/) });
    expect(typeof banner.time).toBe('number');
    for (const [key, path] of [
      ['mcp_url', '/mcp'],
      ['sse_url', '/sse'],
      ['management_url', '/manage/v1'],
    ])
      expect(banner[key]).toBe(`${banner.url}${path}`);
    const client = await connect(banner.mcp_url);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('fx_echo');
    await client.close();

    // A second gateway on the same port cannot listen: a JSON error line, with or without --log-format json.
    const port = Number(new URL(banner.url).port);
    for (const flags of [[], ['--log-format', 'json']]) {
      const taken = run(['server', '--config', cfg, '--port', String(port), ...flags]);
      expect(await taken.exited).toBe(1);
      const errors = jsonLines(taken.stderr());
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({
        level: 50,
        pid: taken.child.pid,
        msg: `cannot listen on 127.0.0.1:${port}: address in use`,
        error: 'listen_failed',
        details: { host: '127.0.0.1', port, code: 'EADDRINUSE' },
      });
      jsonLines(taken.output());
    }
    // A config that does not load: its problems as data too.
    const bad = writeYaml(dir, 'bad.yaml', 'backends:\n  a:\n    type: stdio\n    comand: node\n');
    const refused = run(['server', '--config', bad, '--port', '0']);
    expect(await refused.exited).toBe(1);
    const [invalid] = jsonLines(refused.stderr());
    expect(invalid).toMatchObject({ level: 50, error: 'config_invalid' });
    expect(invalid.details.problems).toContainEqual(expect.objectContaining({ path: 'backends.a.comand', line: 4 }));

    gw.child.kill('SIGTERM');
    expect(await gw.exited).toBe(0);
    // Everything it wrote, backend process output (-vv) and the shutdown included.
    const all = [...jsonLines(gw.output()), ...jsonLines(gw.stderr())];
    expect(all.map((r) => r.msg)).toEqual(expect.arrayContaining(['listening', 'stop requested']));
    expect(all.some((r) => /serving stdio/.test(String(r.msg)))).toBe(true);
  }, 120_000); // four gateway processes

  it('refuses to start on a bad config, naming the key path, and on a bad --port', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-cli-'));
    const bad = writeYaml(dir, 'bad.yaml', 'backends:\n  a:\n    type: stdio\n    comand: node\n');
    const gw = run(['server', '--config', bad, '--port', '0']);
    expect(await gw.exited).not.toBe(0);
    expect(gw.stderr()).toContain('backends.a.comand (line 4');
    const noConfig = run(['server', '--port', '0'], { cwd: dir });
    expect(await noConfig.exited).not.toBe(0);
    expect(noConfig.stderr()).toMatch(/config\.yaml/);
    const badPort = run(['server', '--config', bad, '--port', 'eighty']);
    expect(await badPort.exited).not.toBe(0);
    expect(badPort.stderr()).toMatch(/port/i);
  });

  it('`npx gateway --version` works from the repository root', async () => {
    // The first npx of a checkout installs it into npx's cache as a directory dependency, which runs its `prepare`
    // script (the build): that rewrote dist/ under the gateways other test files were starting at the same moment
    // (a CI run failed so). The scripts are not this test's subject; npx finding and running the bin is.
    const env = { ...process.env, npm_config_ignore_scripts: 'true' };
    const { stdout } = await promisify(execFile)('npx', ['--no-install', 'gateway', '--version'], { cwd: repoRoot(), env });
    expect(stdout.trim()).toBe(PKG_VERSION);
  }, 120_000); // npx can take tens of seconds to start on a loaded two-core machine
});
