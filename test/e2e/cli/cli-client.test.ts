/**
 * gateway-client against a live gateway: every one-shot command's `-o json`
 * equals the management API's own answer, table and YAML output, global
 * options before or after the command words, the token, exit codes 0/1/2/3,
 * the event stream, scripted input, and shutdown.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { fixtureCommand } from '../../fixtures/spawn.js';
import { startGatewayCli, type GatewayProcess } from '../../helpers/gateway-cli.js';
import { managementClient } from '../../helpers/management-client.js';
import { CLIENT_BIN, GATEWAY_BIN, clientJson, runBin } from '../../helpers/cli-run.js';
import { freePort } from '../../helpers/ports.js';
import { waitFor } from '../../helpers/wait.js';

const TOKEN = 'cli-test-token-0123456789abcdef01234567';
let gw: GatewayProcess;
let api: ReturnType<typeof managementClient>;
let env: NodeJS.ProcessEnv;

/** Fields that move between two calls (clocks, health-check timings). */
function steady(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (key, v) =>
    ['uptime_seconds', 'age_seconds', 'idle_seconds', 'last_check', 'latency_ms', 'message'].includes(key) && typeof v !== 'object' ? '<varies>' : v,
  );
}

const json = (args: string[], code = 0) => clientJson(gw.url, args, env, code);
const client = (args: string[], extra: { env?: NodeJS.ProcessEnv; input?: string } = {}) =>
  runBin(CLIENT_BIN, args, { env: { ...env, ...extra.env }, input: extra.input });

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-client-'));
  const f = fixtureCommand(['--name', 'fx']);
  const config = join(dir, 'gateway.yaml');
  writeFileSync(
    config,
    stringify({
      audit: { enabled: false },
      feature_flags: { hot_reload: true },
      backends: { fx: { type: 'stdio', command: f.command, args: f.args, group: 'tests' } },
    }),
  );
  const state = join(dir, 'state');
  gw = await startGatewayCli({
    args: ['--config', config, '--port', '0'],
    cwd: dir,
    env: { ...process.env, GATEWAY_STATE_DIR: state, GATEWAY_MGMT_TOKEN: TOKEN },
  });
  api = managementClient(gw.url, TOKEN);
  // The client reads the token from the environment, like an operator's shell.
  env = { GATEWAY_STATE_DIR: state, GATEWAY_MGMT_TOKEN: TOKEN, GATEWAY_URL: '' };
}, 60_000);

afterAll(async () => {
  await gw?.stop();
});

describe('gateway-client one-shot commands', { timeout: 60_000 }, () => {
  it('-o json prints exactly what the management API answers, for every read command', async () => {
    const pairs: Array<[string[], string]> = [
      [['status'], '/status'],
      [['health', 'status'], '/health'],
      [['backends', 'list'], '/backends'],
      [['groups', 'list'], '/groups'],
      [['capabilities'], '/capabilities'],
      [['tools', 'list'], '/capabilities?type=tools'],
      [['tools', 'list', '--backend', 'fx'], '/capabilities?type=tools&backend=fx'],
      [['resources', 'list'], '/capabilities?type=resources'],
      [['prompts', 'list'], '/capabilities?type=prompts'],
      [['events', 'list', '--limit', '5', '--severity', 'info'], '/events?limit=5&severity=info'],
    ];
    for (const [args, path] of pairs) {
      const mine = await json(args);
      const theirs = await api.get(path);
      expect(theirs.status, path).toBe(200);
      expect(steady(mine), `${args.join(' ')} vs GET ${path}`).toEqual(steady(theirs.body));
    }
    expect((await json(['tools', 'list'])).tools.map((t: any) => t.name)).toContain('fx_echo');

    const fx = (await api.get('/backends')).body.backends.find((b: any) => b.name === 'fx');
    expect(steady(await json(['backends', 'show', 'fx']))).toEqual(steady(fx));

    // The sessions list is compared once this client's own calls are done.
    const sessions = await json(['sessions', 'list']);
    expect(steady(sessions)).toEqual(steady((await api.get('/sessions')).body));
    const table = await client(['-s', gw.url, '-o', 'table', 'sessions', 'list']);
    expect(table.stdout).toMatch(/ID\s+TRANSPORT\s+REVISION\s+USER\s+TOOLS\s+WAITING\s+AGE\s+IDLE\s+EXPIRED\s+REPLICA/);
  });

  it('proxy commands: tools call (typed --arg, --json, isError exits 1), resources read, prompts get', async () => {
    const echo = await json(['tools', 'call', 'fx_echo', '--arg', 'text=hello there']);
    const viaApi = await api.post('/tools/call', { tool: 'fx_echo', arguments: { text: 'hello there' } });
    // The same answer, but for the id each call is given (its audit record's call_id).
    expect({ ...echo, call_id: 'x' }).toEqual({ ...viaApi.body, call_id: 'x' });
    expect(echo.call_id).not.toBe(viaApi.body.call_id);
    // `a` and `b` are numbers in the tool's schema: the text "2" is sent as 2; --arg wins over --json.
    const add = await json(['tools', 'call', 'fx_add', '--json', '{"a": 40, "b": 1}', '--arg', 'a=2']);
    expect(add.content[0].text).toBe('3');
    // A string property keeps text that looks like a number.
    expect((await json(['tools', 'call', 'fx_echo', '--arg', 'text=007'])).content[0].text).toBe('007');
    const failed = await json(['tools', 'call', 'fx_fail'], 1);
    expect(failed.isError).toBe(true);
    const failedTable = await client(['-s', gw.url, '-o', 'table', 'tools', 'call', 'fx_fail']);
    expect(failedTable.code).toBe(1);
    expect(failedTable.stdout).toContain('reported an error');

    const read = await json(['resources', 'read', 'fixture://fx/info']);
    expect(read).toEqual((await api.post('/resources/read', { uri: 'fixture://fx/info' })).body);
    expect((await client(['-s', gw.url, '-o', 'table', 'resources', 'read', 'fixture://fx/info'])).stdout).toBe('info from fx\n');

    // Through POST /prompts/get; the messages are what an MCP client gets.
    const prompt = await json(['prompts', 'get', 'fx_greet', '--arg', 'name=alice']);
    expect(prompt).toEqual((await api.post('/prompts/get', { name: 'fx_greet', arguments: { name: 'alice' } })).body);
    expect(prompt).toMatchObject({ prompt: 'fx_greet', backend: 'fx' });
    const sdk = new Client({ name: 'cli-test', version: '1' });
    await sdk.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`)));
    expect(prompt.messages).toEqual((await sdk.getPrompt({ name: 'fx_greet', arguments: { name: 'alice' } })).messages);
    await sdk.close();
    const unknownPrompt = await client(['-s', gw.url, 'prompts', 'get', 'nope']);
    expect(unknownPrompt.code).toBe(1);
    expect(unknownPrompt.stderr).toMatch(/nope/);
  });

  it('control commands: reload, backends reconnect; errors exit 1 with the server error', async () => {
    expect(await json(['reload'])).toEqual({ reloaded: true, backends_added: [], backends_removed: [], backends_changed: [], errors: [] });
    expect(await json(['backends', 'reconnect', 'fx'])).toEqual({ name: 'fx', reconnected: true, error: null });

    const cases: Array<[string[], RegExp]> = [
      [['backends', 'reconnect', 'nope'], /Error 404 backend_not_found/],
      [['backends', 'show', 'nope'], /No backend named "nope". Backends: fx/],
      [['reauth', 'fx', '--no-browser'], /no outgoing authentication/],
      [['skills', 'enable', 'x'], /Error 404 skill_not_found/],
      [['skills', 'disable', 'x'], /Error 404 skill_not_found/],
      [['registry', 'search', 'files'], /Error 404 registry_not_found/],
      [['registry', 'search', 'bad!'], /Error 400 bad_request/],
    ];
    for (const [args, re] of cases) {
      const r = await client(['-s', gw.url, ...args]);
      expect(r.code, `${args.join(' ')}\n${r.stderr}`).toBe(1);
      expect(r.stderr).toMatch(re);
    }
    // No skills directory here: the list is empty, not an error.
    expect(await json(['skills', 'list'])).toEqual({ skills: [] });
  });

  it('output formats, global options anywhere, token handling, exit codes 2 and 3', async () => {
    const asJson = await json(['backends', 'list']);
    // Global options before the command words, after them, or as defaults.
    const before = JSON.parse((await client(['-o', 'json', '-s', gw.url, 'backends', 'list'])).stdout);
    const after = JSON.parse((await client(['backends', 'list', '-s', gw.url, '-o', 'json'])).stdout);
    expect(steady(before)).toEqual(steady(asJson));
    expect(steady(after)).toEqual(steady(asJson));
    // Not a terminal: JSON by default.
    const plain = await client(['-s', gw.url, 'groups', 'list']);
    expect(JSON.parse(plain.stdout)).toEqual((await api.get('/groups')).body);
    const yaml = await client(['-s', gw.url, '-o', 'yaml', 'groups', 'list']);
    expect(parse(yaml.stdout)).toEqual((await api.get('/groups')).body);
    // Counts read in the right number: "1 prompt", never "1 prompts".
    const show = await client(['-s', gw.url, '-o', 'table', 'backends', 'show', 'fx']);
    const capabilities = /^Capabilities: +(.*)$/m.exec(show.stdout)![1];
    expect(capabilities).toMatch(/^\d+ tools?, \d+ resources?, \d+ prompts?$/);
    for (const [, n, noun] of capabilities.matchAll(/(\d+) (\w+)/g)) expect(noun.endsWith('s'), capabilities).toBe(n !== '1');
    const table = await client(['-s', gw.url, '-o', 'table', 'backends', 'list']);
    expect(table.stdout).toMatch(/^NAME\s+TYPE\s+GROUP\s+PHASE\s+STATE\s+HEALTH\s+PROTOCOL/);
    // The fixture is a 1.x SDK server: the gateway asked, and fell back to 2025-11-25.
    expect(table.stdout).toMatch(/\nfx\s+stdio\s+tests\s+Ready\s+connected\s+healthy\s+2025-11-25/);
    expect(show.stdout).toMatch(/^Protocol: +2025-11-25$/m);
    expect(table.stdout).not.toContain('\x1b[');

    // The token: -t wins; without one the API refuses (exit 4, an authentication problem, with the way out).
    const noToken = await client(['-s', gw.url, 'backends', 'list'], { env: { GATEWAY_MGMT_TOKEN: '' } });
    expect(noToken.code).toBe(4);
    expect(noToken.stderr).toMatch(/Authentication failed \(401 unauthorized\)/);
    expect(noToken.stderr).toContain('-t TOKEN, or GATEWAY_MGMT_TOKEN');
    const withFlag = await client(['-s', gw.url, '-t', TOKEN, 'backends', 'list'], { env: { GATEWAY_MGMT_TOKEN: '' } });
    expect(withFlag.code).toBe(0);
    const wrong = await client(['-s', gw.url, '--token', 'wrong', 'backends', 'list']);
    expect(wrong.code).toBe(4);

    for (const args of [
      ['frobnicate'],
      ['tools', 'call'],
      ['-o', 'xml', 'status'],
      ['tools', 'call', 'fx_echo', '--arg', 'novalue'],
      ['tools', 'call', 'fx_echo', '--json', '[1]'],
      ['-s', 'ftp://x', 'status'],
    ]) {
      const r = await client(['-s', gw.url, ...args]);
      expect(r.code, `${args.join(' ')}\n${r.stdout}${r.stderr}`).toBe(2);
    }
    // Bad option values are usage errors too, refused before anything is sent, with the option named.
    for (const [args, option] of [
      [['events', 'list', '--severity', 'fatal'], '--severity'],
      [['events', 'list', '--limit', '0'], '--limit'],
      [['events', 'list', '--limit', '1001'], '--limit'],
      [['events', 'list', '--since', 'yesterday'], '--since'],
      [['registry', 'search', 'files', '--limit', '0'], '--limit'],
      [['capabilities', '--type', 'widgets'], '--type'],
      [['shutdown', '--timeout', '1.5'], '--timeout'],
      [['reauth', 'fx', '--timeout', '0'], '--timeout'],
      [['containers', 'stop', 'x', '--timeout', 'soon'], '--timeout'],
    ] as const) {
      const r = await client(['-s', gw.url, ...args]);
      expect(r.code, `${args.join(' ')}\n${r.stdout}${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(`Invalid value for ${option}`);
    }
    // The same in the REPL's scripted mode: the command's own status.
    expect((await client(['-s', gw.url], { input: 'events list --severity fatal\n' })).code).toBe(2);
    expect((await client(['-s', gw.url, '-o', 'json', 'events', 'list', '--since', '2020-01-01', '--limit', '2'])).code).toBe(0);

    const port = await freePort();
    const down = await client(['-s', `http://127.0.0.1:${port}`, 'backends', 'list']);
    expect(down.code).toBe(3);
    expect(down.stderr).toContain(`http://127.0.0.1:${port}`);
    expect(down.stderr).toContain('gateway status');
    // GATEWAY_URL is used when there is no -s.
    expect((await client(['health', 'status'], { env: { GATEWAY_URL: `http://127.0.0.1:${port}` } })).code).toBe(3);
    expect((await client(['health', 'status'], { env: { GATEWAY_URL: gw.url } })).code).toBe(0);
  });

  it('text from a backend reaches a terminal without control characters in tables; JSON and YAML keep it exact', async () => {
    // Clear the screen, set the title, CSI as one C1 character, DEL, a bare carriage return.
    const hostile = 'before\x1b[2J\x1b]0;pwned\x07 \u009b31m red\x7f\rafter';
    // eslint-disable-next-line no-control-regex
    const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
    const args = ['tools', 'call', 'fx_echo', '--arg', `text=${hostile}`];
    const table = await client(['-s', gw.url, '-o', 'table', ...args]);
    expect(table.code).toBe(0);
    expect(table.stdout).not.toMatch(CONTROL);
    expect(table.stdout).toContain('before');
    expect(table.stdout).toContain('after');

    const asJson = await client(['-s', gw.url, '-o', 'json', ...args]);
    expect(asJson.stdout).not.toMatch(CONTROL);
    expect(JSON.parse(asJson.stdout).content[0].text).toBe(hostile);
    const asYaml = await client(['-s', gw.url, '-o', 'yaml', ...args]);
    expect(asYaml.stdout).not.toMatch(CONTROL);
    expect(parse(asYaml.stdout).content[0].text).toBe(hostile);

    // An error message from the server is text for the terminal too.
    const unknown = await client(['-s', gw.url, 'tools', 'call', `nope\x1b[2J`]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/nope/);
    expect(unknown.stderr).not.toContain('\x1b[2J');
  });

  it('a reader that closes the pipe early (| head) ends either program quietly, exit 0, no EPIPE stack trace', async () => {
    for (const [bin, args] of [
      [CLIENT_BIN, ['-s', gw.url, '-o', 'json', 'capabilities']],
      [GATEWAY_BIN, ['status', '-o', 'json']],
    ] as const) {
      const r = await runBin(bin, [...args], { env, closeStdout: true });
      expect(r.stderr, `${args.join(' ')}`).toBe('');
      expect(r.code, `${args.join(' ')}`).toBe(0);
    }
  });

  it('events follow prints one JSON line per live event until interrupted', async () => {
    const child = spawn(process.execPath, [CLIENT_BIN, '-s', gw.url, '-o', 'json', 'events', 'follow'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    // The stream opens some time after the process starts: reconnect until an event shows up.
    await waitFor(async () => {
      await api.post('/reconnect/fx');
      return out.includes('"stage":"connected"');
    }, 'a connected event from events follow');
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.every((e) => typeof e.id === 'string' && typeof e.stage === 'string' && e.backend === 'fx')).toBe(true);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });

  it('events follow lines its columns up under a header, whatever the severity, backend and stage of each event', async () => {
    const child = spawn(process.execPath, [CLIENT_BIN, '-s', gw.url, '-o', 'table', 'events', 'follow'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    // A reconnect (stages of several lengths, backend fx) and a reload (no backend): lines of different shapes.
    await waitFor(async () => {
      await api.post('/reconnect/fx');
      await api.post('/reload');
      const stages = new Set(
        out
          .split('\n')
          .slice(1)
          .map((l) => l.split(/\s+/)[3]),
      );
      return stages.has('connected') && stages.has('reload') && [...stages].some((s) => s && s !== 'connected' && s !== 'reload');
    }, 'events of several shapes from events follow');
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    const [header, ...lines] = out.trimEnd().split('\n');
    expect(header).toMatch(/^TIME +SEVERITY +BACKEND +STAGE +MESSAGE$/);
    const columns = ['SEVERITY', 'BACKEND', 'STAGE', 'MESSAGE'].map((h) => header.indexOf(h));
    for (const line of lines) {
      // Each column starts where its header does: the cell before it, and its padding, end just there.
      for (const at of columns) expect(line.slice(at - 2, at), `${line}\n${header}`).toBe('  ');
      for (const at of columns) expect(line[at], `${line}\n${header}`).not.toBe(' ');
    }
    expect(lines.some((l) => /\s-\s+reload\s/.test(l))).toBe(true);
  });

  it('with standard input not a terminal, runs one command per line and exits with the last status', async () => {
    const ok = await client(['-s', gw.url], { input: 'backends show nope\n# a comment\n\nhealth status\n' });
    expect(ok.code).toBe(0);
    expect(ok.stderr).toContain('No backend named "nope"');
    expect(JSON.parse(ok.stdout).status).toBe('healthy');
    const ko = await client(['-s', gw.url], { input: 'health status\nbackends show nope\n' });
    expect(ko.code).toBe(1);
    const quits = await client(['-s', gw.url], { input: 'health status\nexit\nbackends show nope\n' });
    expect(quits.code).toBe(0);
  });

  it('shutdown stops the gateway', async () => {
    expect(await json(['shutdown', '--timeout', '1'])).toEqual({ shutting_down: true });
    // It exits by itself: a signal sent now could only race the process's own exit.
    expect(await gw.exited).toEqual({ code: 0, signal: null });
    expect((await client(['-s', gw.url, 'health', 'status'])).code).toBe(3);
  });
});
