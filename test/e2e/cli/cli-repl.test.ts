/**
 * The gateway-client REPL in a real terminal (tmux): completion of command
 * words and of live backend and tool names, history across two runs, and the
 * status line following the server: a backend stopping, the gateway going
 * away, and coming back on the same port.
 */
import { describe, it, expect, afterEach } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { fixtureCommand, startHttpFixture, type HttpFixture } from '../../fixtures/spawn.js';
import { startGatewayCli, type GatewayProcess } from '../../helpers/gateway-cli.js';
import { CLIENT_BIN } from '../../helpers/cli-run.js';
import { TmuxTerminal, tmuxAvailable } from '../../helpers/tmux.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const WAIT_MS = 30_000;

function writeConfig(dir: string, name: string, backends: Record<string, unknown>): string {
  const path = join(dir, name);
  writeFileSync(path, stringify({ audit: { enabled: false }, health: { interval_s: 0.5, timeout_s: 2 }, backends }));
  return path;
}

describe('gateway-client REPL (tmux)', { timeout: 240_000 }, () => {
  it('completes commands and live names, keeps history across runs, and shows the server state in its status line', async () => {
    expect(tmuxAvailable(), 'tmux is required for this test (.ci/run installs it)').toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'gw-repl-'));
    const state = join(dir, 'state');
    const web: HttpFixture = await startHttpFixture({ transport: 'streamable-http', name: 'web' });
    cleanups.push(() => web.stop());
    const f = fixtureCommand(['--name', 'fx']);
    const fx = { type: 'stdio', command: f.command, args: f.args };
    const config = writeConfig(dir, 'gateway.yaml', { fx, web: { type: 'streamable-http', url: web.url } });
    const gwEnv = { ...process.env, GATEWAY_STATE_DIR: join(dir, 'server-state') };
    let gw: GatewayProcess = await startGatewayCli({ args: ['--config', config, '--port', '0'], cwd: dir, env: gwEnv });
    cleanups.push(() => gw.stop());
    const status = (s: string) => new RegExp(`● ${gw.url.replace(/[.:/]/g, '\\$&')} \\| ${s}`);

    const repl = () => {
      const term = new TmuxTerminal(`${process.execPath} ${CLIENT_BIN} -s ${gw.url}`, { width: 120, height: 30, env: { GATEWAY_STATE_DIR: state } });
      cleanups.push(() => term.kill());
      return term;
    };
    /** The line holding the prompt (the last one that starts with it). */
    const promptLine = (term: TmuxTerminal) =>
      (
        term
          .lines()
          .filter((l) => l.startsWith('gateway>'))
          .at(-1) ?? ''
      ).replace(/ +$/, (spaces) => (spaces.length > 1 ? ' ' : spaces)); // the pane pads lines with spaces: keep at most one

    // --- first run: completion ---
    const first = repl();
    await first.waitForScreen((s) => status('backends 2/2 healthy').test(s), 'the status line with both backends healthy', WAIT_MS);
    // The status line is the terminal's last row.
    expect(first.lines().at(-1)).toMatch(status('backends 2/2 healthy'));

    first.type('back');
    first.send('Tab'); // a Tab at the end of a burst completes (inside pasted text it would be literal)
    await first.waitForScreen(() => promptLine(first) === 'gateway> backends ', 'the command word completed', WAIT_MS);
    first.type('sh');
    first.send('Tab');
    await first.waitForScreen(() => promptLine(first) === 'gateway> backends show ', 'the sub-command completed', WAIT_MS);
    first.type('w');
    first.send('Tab');
    await first.waitForScreen(() => promptLine(first) === 'gateway> backends show web ', 'the live backend name completed', WAIT_MS);
    first.send('Enter');
    await first.waitForScreen((s) => /Type:\s+streamable-http/.test(s), 'the backend shown', WAIT_MS);
    expect(first.screen()).toMatch(/Name:\s+web/);

    first.type('tools call fx_ec');
    first.send('Tab');
    await first.waitForScreen(() => promptLine(first) === 'gateway> tools call fx_echo ', 'the live tool name completed', WAIT_MS);
    first.type('--arg text=typed-in-tmux');
    first.send('Enter');
    await first.waitForScreen((s) => /^typed-in-tmux$/m.test(s), 'the tool result', WAIT_MS);
    first.send('C-d');
    await first.waitForScreen(() => first.exited(), 'the REPL to exit on Ctrl-D', WAIT_MS);

    const history = readFileSync(join(state, 'client_history'), 'utf8').trim().split('\n');
    expect(history).toEqual(['backends show web', 'tools call fx_echo --arg text=typed-in-tmux']);

    // --- second run: history recall, then the status line follows the server ---
    const second = repl();
    await second.waitForScreen((s) => status('backends 2/2 healthy').test(s), 'the second REPL status line', WAIT_MS);
    second.send('Up');
    await second.waitForScreen(() => promptLine(second) === 'gateway> tools call fx_echo --arg text=typed-in-tmux', 'the last command recalled', WAIT_MS);
    second.send('Up');
    await second.waitForScreen(() => promptLine(second) === 'gateway> backends show web', 'the command before it', WAIT_MS);
    second.send('C-c'); // drops the recalled line, like a shell
    await second.waitForScreen(() => promptLine(second) === 'gateway> ', 'an empty prompt', WAIT_MS);

    await web.stop();
    await second.waitForScreen((s) => status('backends 1/2 healthy').test(s), 'the status line after the web backend stopped', WAIT_MS);

    const port = new URL(gw.url).port;
    await gw.stop();
    await second.waitForScreen((s) => status('unreachable').test(s), 'the status line after the gateway stopped', WAIT_MS);
    expect(second.lines().at(-1)).toMatch(status('unreachable'));

    // The gateway returns on the same address: the status line recovers by itself.
    const again = writeConfig(dir, 'again.yaml', { fx });
    gw = await startGatewayCli({ args: ['--config', again, '--port', port], cwd: dir, env: gwEnv });
    await second.waitForScreen((s) => status('backends 1/1 healthy').test(s), 'the status line after the gateway came back', WAIT_MS);
    second.type('health status');
    second.send('Enter');
    await second.waitForScreen((s) => /Status:\s+healthy/.test(s), 'a command after the recovery', WAIT_MS);
    console.log(`REPL screen at the end of the test:\n${second.screen()}`);
  });
});
