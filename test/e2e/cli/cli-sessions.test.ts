/**
 * Server sessions as an operator uses them: `gateway server -d`, `gateway
 * status`, `gateway stop` (one, --all, --force, --timeout), each run as a real
 * process with its own temporary state directory and free ports.
 */
import { describe, it, expect, afterEach } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { fixtureCommand } from '../../fixtures/spawn.js';
import { isAlive, waitFor } from '../../helpers/wait.js';
import { freePort } from '../../helpers/ports.js';
import { GATEWAY_BIN, CLIENT_BIN, runBin } from '../../helpers/cli-run.js';
import { FALLBACK_SERVER_URL, resolveServerUrl } from '../../../cli/client/server-url.js';
import { serverChoices } from '../../../cli/servers/server-choices.js';

/** Processes whose parent is `pid`, from /proc (their stat's fourth field). */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

interface Sandbox {
  state: string;
  env: NodeJS.ProcessEnv;
  config: string;
}

const pids: number[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

function sandbox(): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), 'gw-sessions-'));
  const f = fixtureCommand(['--name', 'fx']);
  const config = join(dir, 'gateway.yaml');
  writeFileSync(config, stringify({ audit: { enabled: false }, backends: { fx: { type: 'stdio', command: f.command, args: f.args } } }));
  const state = join(dir, 'state');
  return { state, config, env: { GATEWAY_STATE_DIR: state, GATEWAY_URL: '' } };
}

const gateway = (sb: Sandbox, args: string[]) => runBin(GATEWAY_BIN, args, { env: sb.env });

/** `gateway server -d --wait` (its backends have had their first attempt when it returns); returns the printed URL and pid. */
async function startDetached(sb: Sandbox, name?: string): Promise<{ url: string; pid: number; stdout: string }> {
  const r = await gateway(sb, ['server', '-d', '--wait', ...(name ? ['--name', name] : []), '--config', sb.config, '--port', '0']);
  expect(r.code, r.stderr).toBe(0);
  const url = /URL\s+(http:\/\/\S+)/.exec(r.stdout)![1];
  const pid = Number(/\(pid (\d+)\)/.exec(r.stdout)![1]);
  pids.push(pid);
  return { url, pid, stdout: r.stdout };
}

async function statusJson(sb: Sandbox): Promise<any[]> {
  const r = await gateway(sb, ['status', '-o', 'json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).sessions;
}

describe('cli: detached server sessions', { timeout: 120_000 }, () => {
  it('starts two named detached gateways, lists both with health, refuses a duplicate name, stops one by name and the rest with --all', async () => {
    const sb = sandbox();
    const alpha = await startDetached(sb, 'alpha');
    const beta = await startDetached(sb, 'beta');
    expect(alpha.stdout).toContain(join(sb.state, 'logs', 'alpha.log'));
    expect(alpha.url).not.toBe(beta.url);
    expect(isAlive(alpha.pid) && isAlive(beta.pid)).toBe(true);
    // The detached server answers on the printed URL right away.
    expect((await fetch(`${alpha.url}/manage/v1/health`)).status).toBe(200);

    const file = JSON.parse(readFileSync(join(sb.state, 'sessions', 'alpha.json'), 'utf8'));
    expect(Object.keys(file).sort()).toEqual(['config', 'host', 'log_file', 'name', 'pid', 'port', 'started_at']);
    expect(file).toMatchObject({ name: 'alpha', pid: alpha.pid, host: '127.0.0.1', config: sb.config, log_file: join(sb.state, 'logs', 'alpha.log') });
    expect(`http://127.0.0.1:${file.port}`).toBe(alpha.url);
    // The log file is no terminal: JSON lines, the banner one of them.
    expect(readFileSync(file.log_file, 'utf8')).toContain('"msg":"listening"');

    const again = await gateway(sb, ['server', '-d', '--name', 'alpha', '--config', sb.config, '--port', '0']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/session named "alpha" is already running/);

    const sessions = await statusJson(sb);
    expect(sessions.map((s) => [s.name, s.pid, s.url, s.health])).toEqual([
      ['alpha', alpha.pid, alpha.url, 'healthy'],
      ['beta', beta.pid, beta.url, 'healthy'],
    ]);
    expect(sessions[0].backends).toEqual({ total: 1, connected: 1, healthy: 1 });
    const table = await gateway(sb, ['status']);
    expect(table.stdout).toMatch(/^NAME\s+PID\s+URL\s+UPTIME\s+HEALTH\s+BACKENDS/);
    expect(table.stdout).toMatch(new RegExp(`alpha\\s+${alpha.pid}\\s+${alpha.url}\\s+\\d+s\\s+healthy\\s+1/1 healthy`));

    // Each is reachable by gateway-client -s.
    for (const s of [alpha, beta]) {
      const r = await runBin(CLIENT_BIN, ['-s', s.url, 'health', 'status', '-o', 'json'], { env: sb.env });
      expect(JSON.parse(r.stdout).status).toBe('healthy');
    }
    // Two running and none named `default`: no -s means the documented fallback, not an arbitrary one of them.
    expect(resolveServerUrl(undefined, sb.env)).toBe(FALLBACK_SERVER_URL);

    const unknown = await gateway(sb, ['stop', 'gamma']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No running session named "gamma". Running: alpha, beta');

    const stopAlpha = await gateway(sb, ['stop', 'alpha']);
    expect(stopAlpha.code, stopAlpha.stderr).toBe(0);
    expect(stopAlpha.stdout).toContain(`Stopped session "alpha" (pid ${alpha.pid})`);
    expect(isAlive(alpha.pid)).toBe(false);
    expect(existsSync(join(sb.state, 'sessions', 'alpha.json'))).toBe(false);
    // A graceful stop: the server logged its shutdown.
    expect(readFileSync(join(sb.state, 'logs', 'alpha.log'), 'utf8')).toContain('gateway stopped');
    expect((await statusJson(sb)).map((s) => s.name)).toEqual(['beta']);
    // The only running session: gateway-client without -s (nor GATEWAY_URL) talks to it, and the TUI opens it.
    const implicit = await runBin(CLIENT_BIN, ['status', '-o', 'json'], { env: sb.env });
    expect(implicit.code, implicit.stderr).toBe(0);
    expect(JSON.parse(implicit.stdout).transport.streamable_http_url).toBe(`${beta.url}/mcp`);
    expect(serverChoices({ file: { servers: [] }, env: sb.env }).active).toMatchObject({ name: 'session/beta', url: beta.url });

    const all = await gateway(sb, ['stop', '--all']);
    expect(all.code).toBe(0);
    expect(all.stdout).toContain('Stopped session "beta"');
    expect(isAlive(beta.pid)).toBe(false);
    expect(await statusJson(sb)).toEqual([]);
    expect((await gateway(sb, ['status'])).stdout).toContain('No running gateway sessions');
  });

  it('server -d returns as soon as the server listens, with a slow backend still connecting (issue 28)', async () => {
    const sb = sandbox();
    // A backend that never answers initialize: its first attempt lasts the whole connect timeout.
    writeFileSync(
      sb.config,
      stringify({
        audit: { enabled: false },
        backends: { slow: { type: 'stdio', command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], timeouts: { connect_s: 60 } } },
      }),
    );
    const r = await gateway(sb, ['server', '-d', '--name', 'quick', '--config', sb.config, '--port', '0']);
    expect(r.code, r.stderr).toBe(0);
    const url = /URL\s+(http:\/\/\S+)/.exec(r.stdout)![1];
    const serverPid = Number(/\(pid (\d+)\)/.exec(r.stdout)![1]);
    pids.push(serverPid);
    // Had it waited for the backend, the attempt would be over (a minute later, Failed).
    const backends = (await (await fetch(`${url}/manage/v1/backends`)).json()) as { backends: Array<{ name: string; phase: string }> };
    expect(backends.backends).toEqual([expect.objectContaining({ name: 'slow', phase: 'Initializing' })]);
    const backendPid = await waitFor(() => childrenOf(serverPid)[0], 'the stdio backend process');
    await gateway(sb, ['stop', 'quick', '--force']);
    // A killed server cannot stop its backends: the CLI kills their process groups after it.
    await waitFor(() => !isAlive(backendPid), "the killed server's stdio backend to be gone");
  });

  it('stop --force kills at once (the default session when no name is given) and removes its file', async () => {
    const sb = sandbox();
    const def = await startDetached(sb);
    expect(def.stdout).toContain('Started gateway session "default"');
    const dup = await gateway(sb, ['server', '-d', '--config', sb.config, '--port', '0']);
    expect(dup.code).toBe(1);
    const r = await gateway(sb, ['stop', '--force']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Killed session "default" (pid ${def.pid})`);
    // Killed, not stopped: no graceful shutdown in the log (it may linger as a zombie nobody reaps; isAlive treats that as gone).
    expect(isAlive(def.pid)).toBe(false);
    expect(readFileSync(join(sb.state, 'logs', 'default.log'), 'utf8')).not.toContain('gateway stopped');
    expect(existsSync(join(sb.state, 'sessions', 'default.json'))).toBe(false);
  });

  it('prunes the files of dead servers and reused pids; reports a live process that does not answer as unreachable; SIGKILL after --timeout', async () => {
    const sb = sandbox();
    // A server killed behind the CLI's back leaves its file.
    const dead = await startDetached(sb, 'dead');
    process.kill(dead.pid, 'SIGKILL');
    await waitFor(() => !isAlive(dead.pid), 'the killed server to be gone');
    expect(existsSync(join(sb.state, 'sessions', 'dead.json'))).toBe(true);

    const sessions = join(sb.state, 'sessions');
    mkdirSync(sessions, { recursive: true });
    const record = (name: string, pid: number, port: number, startedAt: Date) => ({
      name,
      pid,
      host: '127.0.0.1',
      port,
      config: sb.config,
      log_file: null,
      started_at: startedAt.toISOString(),
    });
    // A pid that now belongs to a process started after the session did: this test's own process, with a session "from 2001".
    writeFileSync(join(sessions, 'reused.json'), JSON.stringify(record('reused', process.pid, await freePort(), new Date('2001-01-01T00:00:00Z'))));
    // A live process, started before its session, listening on nothing: alive but unreachable. It also ignores SIGTERM.
    const stubborn = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000); console.log('ready')"], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    children.push(stubborn);
    await new Promise((resolve) => stubborn.stdout!.once('data', resolve));
    writeFileSync(join(sessions, 'mute.json'), JSON.stringify(record('mute', stubborn.pid!, await freePort(), new Date(Date.now() + 1500))));

    const status = await gateway(sb, ['status', '-o', 'json']);
    expect(status.stderr).toContain('stale session file of "dead"');
    expect(status.stderr).toContain('stale session file of "reused"');
    const listed = JSON.parse(status.stdout).sessions;
    expect(listed.map((s: any) => [s.name, s.health, s.backends])).toEqual([['mute', 'unreachable', null]]);
    expect(existsSync(join(sessions, 'dead.json'))).toBe(false);
    expect(existsSync(join(sessions, 'reused.json'))).toBe(false);
    expect(isAlive(process.pid)).toBe(true); // pruning a file never signals its pid

    const stop = await gateway(sb, ['stop', 'mute', '--timeout', '1']);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toContain(`Killed session "mute" (pid ${stubborn.pid}): it did not stop within 1 s`);
    expect(isAlive(stubborn.pid!)).toBe(false);
    expect(existsSync(join(sessions, 'mute.json'))).toBe(false);
  });

  it('a detached start that fails exits 1 with the server error; bad names and options are usage errors', async () => {
    const sb = sandbox();
    const bad = join(sb.state, '..', 'bad.yaml');
    writeFileSync(bad, 'backends:\n  a:\n    type: stdio\n    comand: node\n');
    const r = await gateway(sb, ['server', '-d', '--name', 'broken', '--config', bad, '--port', '0']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('backends.a.comand (line 4');
    expect(existsSync(join(sb.state, 'sessions', 'broken.json'))).toBe(false);

    for (const args of [
      ['server', '-d', '--name', 'Not_Valid'],
      ['server', '--log-file', '/tmp/x.log'],
      ['stop', 'a', '--all'],
      ['stop', '--timeout', 'soon'],
      ['status', '-o', 'yaml'],
      ['no-such-command'],
    ]) {
      const u = await gateway(sb, args);
      expect(u.code, `${args.join(' ')}: ${u.stderr}`).toBe(2);
      expect(u.stderr.length).toBeGreaterThan(0);
    }
  });
});

describe('cli: foreground server sessions and banner', { timeout: 120_000 }, () => {
  it('writes a session file while running (default, then default-2), removes it on exit; --log-format json prints the banner as JSON', async () => {
    const sb = sandbox();
    const start = (extra: string[]) => {
      const child = spawn(process.execPath, [GATEWAY_BIN, 'server', '--config', sb.config, '--port', '0', ...extra], {
        env: { ...process.env, ...sb.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let out = '';
      child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
      return { child, out: () => out, exited: new Promise<number | null>((r) => child.once('exit', r)) };
    };
    const first = start(['--log-format', 'json']);
    const bannerLine = await waitFor(
      () =>
        first
          .out()
          .split('\n')
          .find((l) => l.includes('"msg":"listening"')),
      'the JSON banner',
    );
    const banner = JSON.parse(bannerLine);
    expect(banner).toMatchObject({ level: 30, msg: 'listening', session: 'default', pid: first.child.pid });
    expect(banner.mcp_url).toBe(`${banner.url}/mcp`);
    expect(banner.sse_url).toBe(`${banner.url}/sse`);
    expect(banner.management_url).toBe(`${banner.url}/manage/v1`);
    expect(typeof banner.time).toBe('number');
    // Every stdout line is JSON with --log-format json.
    for (const line of first.out().trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();

    const second = start([]);
    await waitFor(() => /session default-2 \(stop with: gateway stop default-2\)/.test(second.out()), 'the second server to take default-2');
    const sessions = await statusJson(sb);
    expect(sessions.map((s) => [s.name, s.pid, s.log_file])).toEqual([
      ['default', first.child.pid, null],
      ['default-2', second.child.pid, null],
    ]);
    // gateway-client finds the default session's URL without -s.
    const viaDefault = await runBin(CLIENT_BIN, ['status', '-o', 'json'], { env: sb.env });
    expect(JSON.parse(viaDefault.stdout).transport.port).toBe(sessions[0].port);

    first.child.kill('SIGTERM');
    second.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(await second.exited).toBe(0);
    expect(await statusJson(sb)).toEqual([]);
    expect(existsSync(join(sb.state, 'sessions', 'default.json'))).toBe(false);
  });

  it('--help has no colour codes when stdout is not a terminal, for both programs', async () => {
    for (const bin of [GATEWAY_BIN, CLIENT_BIN]) {
      const r = await runBin(bin, ['--help'], { env: { FORCE_COLOR: undefined, NO_COLOR: undefined } });
      expect(r.code).toBe(0);
      expect(r.stdout.length).toBeGreaterThan(100);
      expect(r.stdout).not.toContain('\x1b[');
    }
    const serverHelp = await runBin(GATEWAY_BIN, ['server', '--help']);
    for (const flag of ['--config', '--host', '--port', '--log-level', '--log-format', '--verbose', '--detach', '--name', '--log-file'])
      expect(serverHelp.stdout).toContain(flag);
    expect(serverHelp.stdout).not.toContain('\x1b[');
  });
});
