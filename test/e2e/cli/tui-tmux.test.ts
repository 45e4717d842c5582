/**
 * `gateway tui` in a real terminal (tmux, 80x24) against real gateways with
 * real backends (server-everything and server-memory, as in the example
 * config, and a fixture server): the dashboard shows the backends, `2` then
 * `/` filters, `r` reconnects and the event appears in the Events view, a
 * tool call typed at full speed arrives whole, switching servers changes what
 * is shown (and is saved), the banner comes when the gateway stops and goes
 * when it is back, resizing redraws, and `q` exits 0. A backend's log page
 * shows the stderr of the session's current run, not of an earlier run of the
 * same session name (real detached sessions).
 */
import { describe, it, expect, afterEach } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { repoRoot } from '../../fixtures/spawn.js';
import { startGatewayCli, type GatewayProcess } from '../../helpers/gateway-cli.js';
import { GATEWAY_BIN, runBin } from '../../helpers/cli-run.js';
import { stdioFixture } from '../../fixtures/fixture-backend.js';
import { waitFor } from '../../helpers/wait.js';
import { skipWithoutTmux, TmuxTerminal, tmuxAvailable } from '../../helpers/tmux.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const WAIT_MS = 40_000;
const TUI_BIN = join(repoRoot(), 'dist', 'cli', 'gateway-tui.js');

function writeConfig(dir: string, name: string, backends: Record<string, unknown>): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    stringify({
      audit: { enabled: false },
      containers: { enabled: false },
      health: { interval_s: 1, timeout_s: 5 },
      conflict_resolution: { strategy: 'prefix' },
      backends,
    }),
  );
  return path;
}

describe.skipIf(skipWithoutTmux)('gateway tui (tmux, real gateways)', { timeout: 300_000 }, () => {
  it('shows, filters, reconnects, calls, switches servers and survives the gateway going away', async () => {
    expect(tmuxAvailable(), 'tmux is required for this test (.ci/run installs it)').toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'gw-tui-'));
    const node = process.execPath;
    const modules = join(repoRoot(), 'node_modules', '@modelcontextprotocol');
    const alphaConfig = writeConfig(dir, 'alpha.yaml', {
      everything: { type: 'stdio', command: node, args: [join(modules, 'server-everything', 'dist', 'index.js'), 'stdio'], group: 'demo' },
      memory: {
        type: 'stdio',
        command: node,
        args: [join(modules, 'server-memory', 'dist', 'index.js')],
        env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
        group: 'demo',
      },
    });
    const betaConfig = writeConfig(dir, 'beta.yaml', { solo: stdioFixture(['--name', 'solo']) });
    // The gateways keep their session files apart from the TUI's: the Servers view lists the file's two.
    const gwEnv = { ...process.env, GATEWAY_STATE_DIR: join(dir, 'gateway-state') };
    let alpha: GatewayProcess = await startGatewayCli({ args: ['--config', alphaConfig, '--port', '0'], cwd: dir, env: gwEnv });
    cleanups.push(() => alpha.stop());
    const beta = await startGatewayCli({ args: ['--config', betaConfig, '--port', '0'], cwd: dir, env: gwEnv });
    cleanups.push(() => beta.stop());
    const serversFile = join(dir, 'servers.json');
    writeFileSync(
      serversFile,
      JSON.stringify({
        servers: [
          { name: 'alpha', url: alpha.url },
          { name: 'beta', url: beta.url },
        ],
        active: 'alpha',
      }),
    );

    const term = new TmuxTerminal(`${node} ${GATEWAY_BIN} tui --servers-config ${serversFile}`, {
      width: 80,
      height: 24,
      env: { GATEWAY_STATE_DIR: join(dir, 'tui-state') },
    });
    cleanups.push(() => term.kill());
    const screens: string[] = [];
    const keep = (title: string) => screens.push(`--- ${title} ---\n${term.screen().replace(/ +$/gm, '')}`);

    // --- the dashboard shows the backends ---
    await term.waitForScreen(
      (s) => /● alpha\s+healthy\s+backends 2\/2 healthy/.test(s) && /Backends\s+Ready 2 \(everything, memory\)/.test(s),
      'the dashboard of alpha',
      WAIT_MS,
    );
    await term.waitForScreen((s) => /everything\s+connected/.test(s) && /memory\s+connected/.test(s), 'both backends in the recent events', WAIT_MS);
    expect(term.lines()[0]).toMatch(/updated \d\d:\d\d:\d\d/);
    keep('dashboard (80x24)');

    // --- 2 then / filters ---
    term.send('2');
    await term.waitForScreen((s) => /^everything\s+stdio\s+demo\s+Ready/m.test(s) && /^memory\s+stdio\s+demo\s+Ready/m.test(s), 'the backends table', WAIT_MS);
    keep('backends');
    term.send('/');
    term.type('mem');
    await term.waitForScreen((s) => /Backends \(2\)\s+\/mem/.test(s) && !/^everything\s/m.test(s) && /^memory\s+stdio/m.test(s), 'only memory', WAIT_MS);
    term.send('Enter');
    keep('backends filtered with /mem');

    // --- r reconnects; the event appears in the Events view ---
    term.send('r');
    await term.waitForScreen((s) => /Reconnected memory/.test(s), 'the reconnect outcome', WAIT_MS);
    // To the Events view through the `:` prompt, completed with Tab.
    term.send(':');
    term.type('ev');
    term.send('Tab');
    await term.waitForScreen(() => /^:events\s/.test(term.lines()[22] ?? ''), 'the completed command', WAIT_MS);
    term.send('Enter');
    await term.waitForScreen((s) => /memory\s+reconnect\s+manual reconnect of memory/.test(s), 'the reconnect event in the Events view', WAIT_MS);
    await term.waitForScreen((s) => /memory\s+connected\s+memory connected/.test(s), 'memory connected again', WAIT_MS);
    keep('events');
    term.send('?');
    await term.waitForScreen(
      (s) => /│ Events \(\d+\) \[following\]/.test(s) && /│ p\s+pause/.test(s) && /│ Moving\s/.test(s) && /│ q \/ Ctrl-C\s+quit/.test(s),
      'the help of the Events view',
      WAIT_MS,
    );
    keep('help (?) on the Events view');
    term.send('Escape');
    await term.waitForScreen((s) => !/Help \(Esc closes\)/.test(s), 'the help closed', WAIT_MS);

    // --- a tool call typed at full speed arrives whole ---
    term.send('3');
    term.type('/everything_echo');
    term.send('Enter', 'Enter');
    await term.waitForScreen((s) => /Tools › everything_echo/.test(s), 'the echo tool page', WAIT_MS);
    term.send('Enter', 'C-u');
    const message = 'typed at full speed: the quick brown fox jumps over the lazy dog';
    term.type(`{"message":"${message}"}`);
    term.send('Enter');
    await term.waitForScreen((s) => s.includes(`Echo: ${message}`) && /isError\s+false/.test(s), 'the echoed message', WAIT_MS);

    // --- switching servers changes what is shown, and is saved ---
    term.send('9');
    await term.waitForScreen((s) => /Servers \(2\)/.test(s) && /alpha\s+http/.test(s) && /beta\s+http/.test(s), 'the servers view', WAIT_MS);
    term.send('j', 'Enter');
    await term.waitForScreen((s) => /● beta\s+healthy/.test(s), 'beta active', WAIT_MS);
    term.send('1');
    await term.waitForScreen((s) => /Backends\s+Ready 1 \(solo\)/.test(s) && /Catalog\s+\d+ tools/.test(s), "beta's dashboard", WAIT_MS);
    term.send('2');
    await term.waitForScreen((s) => /Backends \(1\)/.test(s) && /^solo\s+stdio/m.test(s) && !/everything|memory/.test(s), "beta's backends", WAIT_MS);
    expect(JSON.parse(readFileSync(serversFile, 'utf8')).active).toBe('beta');
    term.send('9');
    term.send('k', 'Enter');
    await term.waitForScreen((s) => /● alpha\s+healthy/.test(s), 'alpha active again', WAIT_MS);
    term.send('1');
    await term.waitForScreen((s) => /Backends\s+Ready 2/.test(s), "alpha's dashboard", WAIT_MS);

    // --- the gateway goes away: the banner; it comes back on the same port: no banner ---
    const port = new URL(alpha.url).port;
    await alpha.stop();
    await term.waitForScreen((s) => /✖ Gateway unreachable \(ECONNREFUSED\), retrying…/.test(s), 'the banner', WAIT_MS);
    expect(term.lines()[0]).toMatch(/● alpha\s+unreachable/);
    keep('gateway stopped');
    alpha = await startGatewayCli({ args: ['--config', alphaConfig, '--port', port], cwd: dir, env: gwEnv });
    await term.waitForScreen((s) => !/unreachable/.test(s) && /● alpha\s+healthy/.test(s) && /Backends\s+Ready 2/.test(s), 'the banner gone', WAIT_MS);

    // --- resizing redraws ---
    term.resize(100, 30);
    // The footer sits on the second-to-last row: row 29 of 30 now.
    await term.waitForScreen(() => /<\?> help/.test(term.lines()[28] ?? ''), 'the footer on row 29 after growing to 100x30', WAIT_MS);
    term.resize(80, 24);
    term.send('2');
    await term.waitForScreen(
      (s) => /^memory\s+stdio/m.test(s) && /^everything\s+stdio/m.test(s) && /<\?> help\s+<Enter> details/.test(term.lines()[22] ?? ''),
      'the backends after shrinking back to 80x24',
      WAIT_MS,
    );

    // --- q exits 0 ---
    term.send('q');
    await term.waitForScreen(() => term.exited(), 'the TUI to exit', WAIT_MS);
    expect(term.exitStatus()).toBe(0);
    // For a closing note or a bug report: TUI_SCREENS_FILE=/path npx vitest run test/e2e/cli/tui-tmux.test.ts
    if (process.env.TUI_SCREENS_FILE) writeFileSync(process.env.TUI_SCREENS_FILE, `${screens.join('\n')}\n`);
  });

  it("shows a backend's stderr of the session's current run only, not of an earlier run under the same name", async () => {
    expect(tmuxAvailable(), 'tmux is required for this test (.ci/run installs it)').toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'gw-tui-log-'));
    const config = writeConfig(dir, 'gateway.yaml', { fx: stdioFixture(['--name', 'fx']) });
    const env = { GATEWAY_STATE_DIR: join(dir, 'state'), GATEWAY_URL: '' };
    const gateway = (args: string[]) => runBin(GATEWAY_BIN, args, { env, cwd: dir });
    // Both runs log backend stderr (-vv) to the same file: <state>/logs/reused.log.
    const start = async () => {
      const r = await gateway(['server', '-d', '--wait', '--name', 'reused', '--config', config, '--port', '0', '-vv']);
      expect(r.code, r.stderr).toBe(0);
      return {
        url: /URL\s+(http:\/\/\S+)/.exec(r.stdout)![1],
        pid: Number(/\(pid (\d+)\)/.exec(r.stdout)![1]),
        logFile: /Log file\s+(\S+)/.exec(r.stdout)![1],
      };
    };
    const first = await start();
    cleanups.push(() => gateway(['stop', '--all']));
    const fixtureLine = (run: { pid: number; logFile: string }) =>
      waitFor(
        () =>
          readFileSync(run.logFile, 'utf8')
            .split('\n')
            .filter((l) => l.startsWith('{'))
            .map((l) => JSON.parse(l) as { pid: number; backend?: string; stream?: string; msg: string })
            .find((r) => r.pid === run.pid && r.backend === 'fx' && r.stream === 'stderr' && /serving stdio/.test(r.msg))?.msg,
        `the stderr line of fx in the run of pid ${run.pid}`,
        WAIT_MS,
      );
    const earlier = await fixtureLine(first);
    expect((await gateway(['stop', 'reused'])).code).toBe(0);
    const second = await start();
    expect(second.logFile).toBe(first.logFile);
    const current = await fixtureLine(second);
    // The fixture names its own pid, so the two runs' lines differ.
    expect(current).not.toBe(earlier);

    const term = new TmuxTerminal(`${process.execPath} ${GATEWAY_BIN} tui --servers-config ${join(dir, 'none.json')} --server ${second.url}`, {
      width: 80,
      height: 24,
      env,
    });
    cleanups.push(() => term.kill());
    term.send('2');
    await term.waitForScreen((s) => /^fx\s+stdio\s+default\s+Ready/m.test(s), 'the backends table', WAIT_MS);
    term.send('l');
    await term.waitForScreen(
      (s) => /Backends › fx › log/.test(s) && new RegExp(`stderr \\(\\d+, this run: pid ${second.pid}, from`).test(s),
      'the log page',
      WAIT_MS,
    );
    term.send('/');
    term.type('serving stdio');
    await term.waitForScreen((s) => s.includes(current), "the current run's line", WAIT_MS);
    expect(term.screen()).not.toContain(earlier);
  });

  it('gateway-tui refuses a bad servers file with its path and the problem', async () => {
    expect(tmuxAvailable(), 'tmux is required for this test (.ci/run installs it)').toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'gw-tui-bad-'));
    const bad = join(dir, 'servers.json');
    writeFileSync(bad, '{"servers": [{"name": "x"}]}');
    const term = new TmuxTerminal(`${process.execPath} ${TUI_BIN} --servers-config ${bad}`, { width: 100, height: 10 });
    cleanups.push(() => term.kill());
    await term.waitForScreen(() => term.exited(), 'gateway-tui to refuse the file', WAIT_MS);
    expect(term.exitStatus()).toBe(1);
    expect(term.allOutput()).toContain(`Servers file ${bad}: /servers/0/url`);
  });
});

describe('gateway-tui without a terminal', { timeout: 60_000 }, () => {
  it('takes the same options as gateway tui, and refuses to start without a terminal', async () => {
    const help = await runBin(TUI_BIN, ['--help']);
    expect(help.code).toBe(0);
    for (const flag of ['--server', '--servers-config', '--token', '--read-only']) expect(help.stdout).toContain(flag);
    const noTty = await runBin(TUI_BIN, ['--server', 'http://127.0.0.1:1'], { input: '' });
    expect(noTty.code).toBe(2);
    expect(noTty.stderr).toContain('gateway tui needs a terminal');
    const gatewayHelp = await runBin(GATEWAY_BIN, ['tui', '--help']);
    for (const flag of ['--server', '--servers-config', '--token', '--read-only']) expect(gatewayHelp.stdout).toContain(flag);
  });
});
