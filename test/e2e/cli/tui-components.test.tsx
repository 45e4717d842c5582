/**
 * The TUI's Ink components (ink-testing-library) against a real gateway
 * (in-process, real stdio fixture backends): the views show the gateway's
 * data, keys move and filter, keystrokes written faster than any frame all
 * arrive in order, actions ask first and are hidden with --read-only, the
 * Servers view edits a real servers file, detail pages line up, and a footer
 * message stays with the page it was made on.
 */
import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { render, cleanup } from 'ink-testing-library';
import { App } from '../../../cli/tui/components/app.js';
import { TuiController } from '../../../cli/tui/controller.js';
import { ServerDirectory } from '../../../cli/servers/server-directory.js';
import type { ServerChoice } from '../../../cli/servers/server-choices.js';
import { startGateway, type Harness } from '../../helpers/gateway-harness.js';
import { freePort } from '../../helpers/ports.js';
import { stdioFixture } from '../../fixtures/fixture-backend.js';
import { waitFor } from '../../helpers/wait.js';
import { startOAuthEnv } from '../../fixtures/oauth-env.js';
import { copySkillFixtures } from '../../helpers/skill-fixtures.js';
import { sampleServers, startFakeRegistry } from '../../helpers/fake-registry.js';
import { startHiddenToolsGateway } from '../../helpers/hidden-tools-gateway.js';

let h: Harness;
beforeAll(async () => {
  h = await startGateway({ health: { interval_s: 0.5, timeout_s: 2 }, backends: { fx: stdioFixture(['--name', 'fx']), fy: stdioFixture(['--name', 'fy']) } });
});
afterAll(async () => h?.close());

const controllers: TuiController[] = [];
afterEach(() => {
  for (const c of controllers.splice(0)) c.quit();
  cleanup();
});

function mount(opts: { readOnly?: boolean; directory?: ServerDirectory; servers?: ServerChoice[]; active?: ServerChoice } = {}) {
  const main: ServerChoice = { name: 'main', url: h.url, source: 'file' };
  const tui = new TuiController({
    servers: opts.servers ?? [main],
    active: opts.active ?? main,
    readOnly: opts.readOnly,
    directory: opts.directory,
    pollMs: 300,
  }).start();
  controllers.push(tui);
  const r = render(<App tui={tui} />);
  const screen = () => stripVTControlCharacters(r.lastFrame() ?? '');
  const until = (pred: (s: string) => boolean, what: string) =>
    waitFor(() => (pred(screen()) ? screen() : undefined), what).catch((err: Error) => {
      throw new Error(`${err.message}\nscreen:\n${screen()}`);
    });
  return { tui, r, screen, until, keys: (data: string) => r.stdin.write(data) };
}

/** Where a line's second column starts: after its first run of two or more spaces (undefined when it has none). */
function valueColumn(line: string): number | undefined {
  const m = /^(.*?\S)( {2,})\S/.exec(line);
  return m ? m[1].length + m[2].length : undefined;
}

/** Where each column after the first starts: after each run of two or more spaces. */
const columnStarts = (line: string) => [...line.matchAll(/ {2,}(?=\S)/g)].map((m) => m.index + m[0].length);

function expectOneColumn(starts: Array<number | undefined>): void {
  expect(starts.length).toBeGreaterThan(1);
  expect(starts[0]).toBeTypeOf('number');
  expect(new Set(starts)).toEqual(new Set([starts[0]]));
}

describe('TUI components (ink-testing-library, real gateway)', { timeout: 60_000 }, () => {
  it('shows the dashboard, jumps with number keys, filters with / and clears with Esc', async () => {
    const { screen, until, keys } = mount();
    await until((s) => /Backends\s+Ready 2/.test(s), 'the dashboard with both backends Ready');
    expect(screen()).toMatch(/● main\s+healthy\s+backends 2\/2 healthy\s+updated \d\d:\d\d:\d\d/);
    expect(screen()).toMatch(/Catalog\s+\d+ tools/);

    keys('2');
    await until((s) => /Backends \(2\)/.test(s) && /^fx\s+stdio/m.test(s) && /^fy\s+stdio/m.test(s), 'the backends table');
    // The revision each connection speaks (1.x fixtures: the gateway fell back to 2025-11-25).
    expect(screen()).toMatch(/^fx\s+stdio\s+\S+\s+Ready\s+2025-11-25/m);
    keys('/');
    keys('fy');
    await until((s) => /\/fy/.test(s) && !/^fx\s+stdio/m.test(s) && /^fy\s+stdio/m.test(s), 'only fy after filtering');
    keys('\r'); // keeps the filter, leaves the input line
    keys('\x1b'); // Esc clears it
    await until((s) => /^fx\s+stdio/m.test(s) && /^fy\s+stdio/m.test(s) && !/\/fy/.test(s), 'both rows again');

    // Enter opens the selected backend; its conditions and tools are there; Esc goes back.
    keys('\r');
    await until((s) => /Backends › fx/.test(s) && /HealthCheckFailed\s+false/.test(s) && /fx_echo/.test(s), 'the detail of fx');
    keys('\x1b');
    await until((s) => /Backends \(2\)/.test(s), 'back on the table');
  });

  it('calls a tool (isError shown), reads a resource, gets a prompt, and lists client sessions with their client', async () => {
    const client = await h.connect({ transport: 'sse' });
    const { until, keys, screen } = mount();
    await until((s) => /Backends\s+Ready 2/.test(s), 'both backends Ready');

    keys('3/fx_fail\r\r');
    await until((s) => /Tools › fx_fail/.test(s) && /Input schema/.test(s), 'the fail tool page');
    keys('\r\x15{"message":"it broke on purpose"}\r');
    await until((s) => /isError\s+true/.test(s) && /it broke on purpose/.test(s), 'the error result');

    keys('4/fx/info\r\r');
    await until((s) => /Resources › fixture:\/\/fx\/info/.test(s) && /Contents/.test(s), 'the resource read');
    keys('\x1b\x1b/fx_greet\r\r');
    await until((s) => /Prompts › fx_greet/.test(s), 'the prompt page');
    keys('\r\x15{"name":"Grace"}\r');
    await until((s) => /Hello Grace from fx/.test(s), 'the prompt messages');

    keys('5');
    await until((s) => /Sessions \(\d+ active\)/.test(s) && /\ssse\s+test-client\s/.test(s), 'the SSE session with its client name');
    expect(screen()).toMatch(/ID\s+TRANSPORT\s+CLIENT\s+REVISION\s+USER\s+TOOLS\s+AGE\s+IDLE\s+EXPIRED\s+REPLICA/);
    expect(screen()).toContain(`${hostname()}-${process.pid}`);
    await client.close();
  });

  it('keeps every keystroke written faster than a frame, in order (one chunk, char by char, Esc then a key)', async () => {
    const { tui, screen, until, keys } = mount();
    await until((s) => /Catalog\s+\d+ tools/.test(s), 'the catalog loaded');
    // All of this is written synchronously: no frame is drawn in between.
    keys('3/fx_echo\r\r');
    await until((s) => /Tools › fx_echo/.test(s), 'the tool page of fx_echo');
    keys('\r'); // edit the arguments
    keys('\x15'); // Ctrl-U: empty the line
    const typed = '{"text": "The quick brown fox jumps over the lazy dog 0123456789 ,.;:!?-_ {[()]} äöü"}';
    for (const ch of typed) keys(ch);
    expect(tui.getState().ui.input?.text).toBe(typed);
    await until((s) => s.includes(`arguments> ${typed}`), 'the whole line on screen');
    keys('\r');
    await until((s) => /isError\s+false/.test(s) && s.includes('The quick brown fox jumps over the lazy dog 0123456789 ,.;:!?-_ {[()]} äöü'), 'the result');

    // A burst with edits inside: typed, two backspaces, more text, Enter: all applied in order.
    keys('\r\x15{"text": "abcX\x7f\x7fZ"}\r');
    await until((s) => /^abZ$/m.test(s), 'the result of the edited burst');

    // Esc and ':' arriving together are two keys: back to the list, then the command line.
    keys('\x1b:');
    expect(tui.getState().ui.input?.purpose).toBe('command');
    keys('ev\t');
    expect(tui.getState().ui.input?.text).toBe('events');
    keys('\r');
    await until((s) => /Events \(\d+\) \[following\]/.test(s), 'the events view');
    expect(screen()).toMatch(/fx\s+connected/);
  });

  it('lists the keys of the view in ? help, asks before reloading, and hides every action with --read-only', async () => {
    const rw = mount();
    await rw.until((s) => /healthy/.test(s), 'the first answer');
    // The header's health and the backends list come from different requests: wait for the list before asking for help.
    rw.keys('2');
    await rw.until((s) => /Backends \(2\)/.test(s), 'the backends view with both backends');
    rw.keys('?');
    await rw.until((s) => /Help \(Esc closes\)/.test(s), 'the help overlay');
    expect(rw.screen()).toMatch(/r\s+reconnect/);
    // At 80x24 every section keeps its title and every key its own line (nothing drawn over another).
    for (const title of [/│ Backends \(2\)\s/, /│ Moving\s/, /│ Everywhere\s/, /│ q \/ Ctrl-C\s+quit\s/, /│ j\/k {2}↓\/↑\s+down \/ up\s/])
      expect(rw.screen()).toMatch(title);
    expect(rw.screen()).toMatch(/Ctrl-R\s+reload the gateway configuration/);
    rw.keys('\x1b\x12'); // close help, Ctrl-R
    await rw.until((s) => /Reload the gateway configuration\?/.test(s), 'the confirm dialog');
    rw.keys('n');
    await rw.until((s) => !/Reload the gateway configuration\?/.test(s), 'the dialog gone after n');
    rw.keys('\x12y');
    // This gateway has hot reload off: the refusal is shown, nothing crashes.
    await rw.until((s) => /hot_reload_disabled/.test(s), 'the refusal of the reload');

    const ro = mount({ readOnly: true });
    await ro.until((s) => /\[read-only\]/.test(s), 'the read-only mark');
    ro.keys('2');
    await ro.until((s) => /Backends \(2\)/.test(s) && /<l> events and stderr/.test(s), 'the backends view');
    expect(ro.screen()).not.toMatch(/reconnect|re-authenticate/);
    ro.keys('r');
    expect(ro.tui.getState().ui.flash).toBeUndefined();
    ro.keys('\x12');
    expect(ro.tui.getState().ui.overlay).toBeUndefined();
    ro.keys('1');
    await ro.until((s) => /Dashboard/.test(s), 'the dashboard');
    expect(ro.screen()).not.toMatch(/shut the gateway down/);
  });

  it('aligns the columns of detail pages: every value at one column, rows of conditions and tools in columns', async () => {
    // Prefixed with this backend's name, the tool names are longer than any fixed column would be.
    const gw = await startGateway({ health: { interval_s: 3600 }, backends: { 'backend-with-a-long-name': stdioFixture(['--name', 'long']) } });
    try {
      const choice: ServerChoice = { name: 'long', url: gw.url, source: 'flag' };
      const { until, keys, screen } = mount({ servers: [choice], active: choice });
      const rows = (pattern: RegExp) =>
        screen()
          .split('\n')
          .filter((l) => pattern.test(l));
      keys('2');
      await until((s) => /^backend-with-a-long-name\s+stdio\s+default\s+Ready/m.test(s), 'the backend Ready');
      keys('\r');
      await until((s) => /Backends › backend-with-a-long-name/.test(s) && /^HealthCheckFailed\s/m.test(s), 'the backend page');
      const fields = rows(/^(Name|Type|Group|Phase|State|Health|Catalog|Container|Labels) /);
      expect(fields).toHaveLength(9);
      expectOneColumn(fields.map(valueColumn));
      const conditions = rows(/^(Ready|HealthCheckFailed) /);
      expect(conditions).toHaveLength(2);
      for (const i of [0, 1, 2, 3]) expectOneColumn(conditions.map((l) => columnStarts(l)[i]));

      keys('/long-name_\r'); // only the tool rows
      await until(() => rows(/^backend-with-a-long-name_/).length >= 5, 'the tool rows');
      expectOneColumn(rows(/^backend-with-a-long-name_/).map(valueColumn));

      keys('\x1b\x1b3/long-name_echo\r\r');
      await until((s) => /Tools › backend-with-a-long-name_echo/.test(s) && /^Arguments /m.test(s), 'the tool page');
      expectOneColumn(rows(/^(Name|Backend|Description|Arguments) /).map(valueColumn));
    } finally {
      await gw.close();
    }
  });

  it('reconnects a backend with r and shows the event live in the Events view', async () => {
    const { tui, until, keys, screen } = mount();
    await until((s) => /Backends\s+Ready 2/.test(s), 'both backends Ready');
    keys('2/fy\r');
    await until((s) => !/^fx\s/m.test(s) && /^fy\s/m.test(s), 'fy selected');
    keys('r');
    await until((s) => /Reconnected fy/.test(s), 'the reconnect outcome');
    keys('6');
    await until((s) => /fy\s+reconnect\s+manual reconnect of fy requested/.test(s), 'the reconnect event in the Events view');
    // The message belongs to the Backends view: the Events view's footer shows its own keys.
    expect(screen()).not.toMatch(/Reconnected fy/);
    expect(screen()).toMatch(/<\?> help\s+<Enter> details\s+<p> pause/);
    // Paused, the list stays; the severity filter narrows it.
    keys('p');
    await until((s) => /\[paused\]/.test(s), 'paused');
    keys('sss');
    await until((s) => /severity ≥ error/.test(s), 'the severity filter at error');

    // An answer that arrives after the user moved on stays with the page it was asked on.
    keys('2');
    await until((s) => /Backends \(2\)/.test(s) && /^fx\s+stdio/m.test(s), 'the backends table, fx first');
    keys('r6');
    await waitFor(() => (tui.getState().ui.flash?.text === 'Reconnected fx' ? true : undefined), 'the outcome of reconnecting fx');
    keys('p'); // a frame drawn after the outcome arrived
    await until((s) => /\[paused\]/.test(s), 'the Events view paused');
    expect(screen()).not.toMatch(/Reconnected fx/);
    // A message made on a view does not follow to the next one either.
    keys(':nonsense\r');
    await until((s) => /Unknown command "nonsense"/.test(s), 'the message on the Events view');
    keys('1');
    await until((s) => /Dashboard/.test(s) && /<\?> help\s+<S> shut the gateway down/.test(s), 'the dashboard with its own keys');
    expect(screen()).not.toMatch(/Unknown command/);
  });

  it('adds, switches to and removes servers in a real servers file (mode 0600, token masked)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-tui-servers-'));
    const file = join(dir, 'servers.json');
    writeFileSync(file, JSON.stringify({ servers: [{ name: 'main', url: h.url }], active: 'main' }));
    const directory = new ServerDirectory(file, {}, { GATEWAY_STATE_DIR: join(dir, 'state') });
    const start = directory.load();
    const { tui, screen, until, keys } = mount({ directory, servers: start.choices, active: start.active });
    // Nothing listens there.
    const spareUrl = `http://127.0.0.1:${await freePort()}`;
    await until((s) => /● main\s+healthy/.test(s), 'main healthy');

    keys('9');
    await until((s) => /Servers \(1\)/.test(s), 'the servers view');
    keys('a');
    keys(`spare ${spareUrl} s3cret-token`);
    await until((s) => s.includes(`spare ${spareUrl} ••••••••••••`), 'the token masked while typed');
    expect(screen()).not.toContain('s3cret');
    keys('\r');
    await until((s) => /Servers \(2\)/.test(s) && new RegExp(`spare\\s+${spareUrl}\\s+file\\s+yes`).test(s), 'spare listed');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      servers: [
        { name: 'main', url: h.url },
        { name: 'spare', url: spareUrl, token: 's3cret-token' },
      ],
      active: 'main',
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);

    // Switch to spare: nothing answers there; the banner says so and the TUI stays.
    keys('G\r');
    await until((s) => /● spare\s+unreachable/.test(s) && /✖ Gateway unreachable \(ECONNREFUSED\), retrying…/.test(s), 'the banner for spare');
    expect(JSON.parse(readFileSync(file, 'utf8')).active).toBe('spare');
    keys('g\r');
    await until((s) => /● main\s+healthy/.test(s) && !/unreachable/.test(s), 'back on main');

    keys('Gd');
    await until((s) => /Remove spare/.test(s), 'the confirm dialog');
    keys('y');
    await until((s) => /Servers \(1\)/.test(s), 'spare removed');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ servers: [{ name: 'main', url: h.url }], active: 'main' });
    expect(tui.getState().ui.active.name).toBe('main');
  });
  it('shows the authorization URL when a (real) OAuth backend is re-authenticated with a', async () => {
    const previousState = process.env.GATEWAY_STATE_DIR;
    // Tokens live in <state>/tokens: a state folder of this test's own.
    process.env.GATEWAY_STATE_DIR = mkdtempSync(join(tmpdir(), 'gw-tui-oauth-'));
    const env = await startOAuthEnv();
    const gw = await startGateway({
      health: { interval_s: 3600 },
      backends: { secure: { type: 'streamable-http', url: env.server.mcpUrl, auth: { type: 'oauth' } } },
    });
    try {
      const choice: ServerChoice = { name: 'oauth', url: gw.url, source: 'flag' };
      const { until, keys, screen } = mount({ servers: [choice], active: choice });
      await until((s) => /Backends\s+Failed 1 \(secure\)/.test(s), 'secure parked as Failed');
      keys('2');
      await until((s) => /^secure\s+streamable-http\s+default\s+Failed/m.test(s), 'the backends table');
      keys('a');
      await until((s) => /Authorize secure/.test(s) && /Open this address in a browser/.test(s), 'the authorization URL');
      const joined = screen().replace(/[│\s]/g, '');
      expect(joined).toContain(`${env.as.issuer}/`.replace(/\s/g, ''));
      expect(joined).toMatch(/response_type=code/);
      keys('\x1b');
      await until((s) => !/Authorize secure/.test(s), 'the message closed');
    } finally {
      await gw.close();
      await env.close();
      process.env.GATEWAY_STATE_DIR = previousState;
    }
  });
  it('marks a quarantined tool in the Tools view and on the dashboard, approves it with a after a confirmation, and hides a with --read-only', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-tui-pins-'));
    const defs = join(dir, 'definitions.json');
    writeFileSync(defs, JSON.stringify({ tools: [{ name: 'read_file', description: 'Reads a file' }] }));
    const gw = await startGateway({ security: { tool_pinning: { mode: 'enforce' } }, backends: { fx: stdioFixture(['--name', 'fx', '--definitions', defs]) } });
    try {
      writeFileSync(defs, JSON.stringify({ tools: [{ name: 'read_file', description: 'Reads any file' }] }));
      await gw.gateway.controller.reconnect('fx');
      const choice: ServerChoice = { name: 'pins', url: gw.url, source: 'flag' };

      const ro = mount({ servers: [choice], active: choice, readOnly: true });
      await ro.until((s) => /Quarantined\s+1 tool waits for approval \(fx 1;/.test(s), 'the quarantined count on the dashboard');
      ro.keys('3/read_file\r');
      await ro.until((s) => /^fx_read_file\s+fx\s+changed \(quarantined\)/m.test(s), 'the marked row (read-only)');
      expect(ro.screen()).not.toMatch(/approve/);
      ro.keys('a');
      expect(ro.tui.getState().ui.overlay).toBeUndefined();

      const rw = mount({ servers: [choice], active: choice });
      rw.keys('3/read_file\r');
      await rw.until((s) => /^fx_read_file\s+fx\s+changed \(quarantined\)/m.test(s) && /<a> approve a pending definition/.test(s), 'the marked row');
      rw.keys('a');
      await rw.until((s) => /Approve the current definition of fx_read_file/.test(s), 'the confirmation');
      rw.keys('n');
      await rw.until((s) => !/Approve the current definition/.test(s), 'the dialog gone after n');
      expect(gw.gateway.controller.backendRecord('fx')?.quarantined_tools).toBe(1);
      rw.keys('ay');
      await rw.until((s) => /Approved fx_read_file: pinned sha256 [0-9a-f]{12}…/.test(s), 'the approval');
      await rw.until((s) => /^fx_read_file\s+fx\s+Reads any file/m.test(s), 'the row without its mark');
      expect(gw.gateway.controller.backendRecord('fx')?.quarantined_tools).toBe(0);
    } finally {
      await gw.close();
    }
  });

  it('marks the tools clients cannot call, never offers to call them, and names the winner of a name conflict', async () => {
    const gw = await startHiddenToolsGateway();
    try {
      const choice: ServerChoice = { name: 'hidden', url: gw.url, source: 'flag' };
      const { until, keys, screen } = mount({ servers: [choice], active: choice });
      await until((s) => /Backends\s+Ready 2/.test(s), 'both backends Ready');
      keys('3');
      await until((s) => /NAME\s+BACKEND\s+STATE\s+DESCRIPTION/.test(s), 'the tools table');
      // Row by row, each through the filter (the table is taller than the screen).
      const row = async (filter: string, pattern: RegExp) => {
        keys(`/${filter}\r`);
        await until((s) => pattern.test(s), `${pattern}`);
        keys('\x1b');
        await until((s) => !s.includes(`/${filter}`), 'the filter cleared');
      };
      await row('echo', /^echo\s+fx\s+Returns its input(.|\n)*^echo\s+fy\s+hidden: fx keeps the name\s+Returns its input/m);
      await row('bad name', /^bad name\s+fx\s+hidden: invalid name\s+Extra tool/m);
      await row('leaky', /^leaky\s+fy\s+suspicious \(quarantined\)\s+Reads a file/m);
      await row('lookup', /^lookup\s+fy\s+Looks a word up/m);

      // fy's echo: why it is not callable, and no call offered: Enter edits no arguments.
      keys('/echo\r');
      await until((s) => /^echo\s+fy\s+hidden/m.test(s) && /^echo\s+fx/m.test(s) && !/^add\s/m.test(s), 'the two echo rows');
      keys('\x1b[B\r'); // the second row: fy's

      await until((s) => /Tools › echo/.test(s) && /Not callable\s+fx exposes the same name and keeps it/.test(s), 'the page of fy’s echo');
      expect(screen()).toMatch(/Backend\s+fy \(as echo\)/);
      expect(screen()).toContain('Clients can neither see nor call this tool.');
      expect(screen()).not.toMatch(/edit arguments|call with these arguments/);
      keys('\r');
      keys('c');
      await until((s) => /Tools › echo/.test(s), 'still the page');
      expect(screen()).not.toMatch(/arguments>|Calling…|isError/);
      // The same for the tool whose name breaks the rules.
      keys('\x1b');
      await until((s) => /Tools \(\d+\)\s+\/echo/.test(s), 'back on the filtered table');
      keys('\x1b/invalid\r\r');
      await until((s) => /Tools › bad name/.test(s) && /Not callable\s+.*not a valid tool name/.test(s), 'the page of bad name');

      // fy's detail names the backend that won each of its names, and greys what clients cannot call.
      keys('\x1b\x1b2/fy\r\r');
      await until((s) => /Backends › fy/.test(s) && /Conflicts\s+fx keeps tools echo, add, /.test(s), 'the conflicts of fy');
      keys('/keeps the name\r');
      await until((s) => /^\s*echo\s+\(fx keeps the name\)\s+Returns its input/m.test(s), 'fy’s echo, greyed with why');
      keys('\x1b/quarantined\r');
      await until((s) => /^\s*leaky\s+\(quarantined\)\s+Reads a file/m.test(s), 'fy’s leaky, greyed with why');
    } finally {
      await gw.close();
    }
  });

  it('shows the plugin chain with its counters (0), and a backend’s circuit in its detail', async () => {
    const gw = await startGateway({
      backends: { fx: stdioFixture(['--name', 'fx']) },
      plugins: [
        { name: 'circuit_breaker' },
        { name: 'secrets_detection', execution_mode: 'permissive', settings: { action: 'block' } },
        { name: 'pii_filter', enabled: false },
      ],
    });
    try {
      const client = await gw.connect();
      await client.callTool({ name: 'fx_echo', arguments: { text: ['AKIA', 'IOSFODNN7EXAMPLE'].join('') } });
      const choice: ServerChoice = { name: 'guarded', url: gw.url, source: 'flag' };
      const { until, keys } = mount({ servers: [choice], active: choice });
      await until((s) => /Backends\s+Ready 1/.test(s), 'the dashboard');
      keys('0');
      await until((s) => /Plugins \(3\)/.test(s) && /^NAME\s+MODE\s+PRIO\s+CALLS\s+BLOCKS/m.test(s), 'the plugins table');
      await until((s) => /^circuit_breaker\s+enforce_ignore_e\S*\s+100\s+1\s+0\s/m.test(s), 'the circuit breaker’s row');
      // Found in the arguments and again in the echoed result: two blocks, logged only.
      await until((s) => /^secrets_detection\s+permissive\s+100\s+1\s+2\s/m.test(s), 'the permissive blocks counted');
      await until((s) => /^pii_filter\s+off\s+100\s+0\s/m.test(s), 'a plugin that is off');
      keys('2');
      await until((s) => /^fx\s+stdio/m.test(s), 'the backends table');
      keys('\r');
      await until((s) => /Backends › fx/.test(s) && /Circuit\s+closed/.test(s), 'the circuit in the detail');
    } finally {
      await gw.close();
    }
  });

  it('toggles a skill and searches the registry (a local registry speaking API v0.1) against a real gateway', async () => {
    const registry = await startFakeRegistry({ servers: sampleServers() });
    const gw = await startGateway({
      skills: { directory: copySkillFixtures() },
      registries: [{ name: 'local', url: registry.url }],
      backends: { fx: stdioFixture(['--name', 'fx']) },
    });
    try {
      const choice: ServerChoice = { name: 'skills', url: gw.url, source: 'flag' };
      const { until, keys } = mount({ servers: [choice], active: choice });
      keys('7');
      await until((s) => /^diamond\s+2\.0\.0\s+disabled/m.test(s), 'the skills table');
      keys(' ');
      await until((s) => /^diamond\s+2\.0\.0\s+enabled/m.test(s) && /Skill diamond enabled/.test(s), 'diamond enabled');
      keys('e');
      await until((s) => /^diamond\s+2\.0\.0\s+disabled/m.test(s) && /Skill diamond disabled/.test(s), 'diamond disabled again');

      keys('8s');
      keys('py\r');
      await until((s) => /Registry \(1\)/.test(s) && /1 of 1 from local/.test(s) && /^io\.github\.acme\/weather-py\s+0\.5\.0\s+stdio/m.test(s), 'one result');
      expect(registry.requests.some((r) => r.query.search === 'py')).toBe(true);
      keys('\r');
      await until((s) => /Registry › io\.github\.acme\/weather-py/.test(s) && /Weather \(PyPI package\)/.test(s), 'the entry');
    } finally {
      await gw.close();
      await registry.close();
    }
  });
});
