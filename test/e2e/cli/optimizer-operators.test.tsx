/**
 * The optimizer's search for operators, against a real gateway (in-process,
 * real stdio fixture backends): `gateway-client tools search` (the compiled
 * bin, table and `-o json`, which is the API's own answer) and the TUI's tools
 * view (Ink, `s` to search, an empty search to show every tool again).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stripVTControlCharacters } from 'node:util';
import { cleanup, render } from 'ink-testing-library';
import { App } from '../../../cli/tui/components/app.js';
import { TuiController } from '../../../cli/tui/controller.js';
import type { ServerChoice } from '../../../cli/servers/server-choices.js';
import { startGateway, type Harness } from '../../helpers/gateway-harness.js';
import { stdioFixture } from '../../fixtures/fixture-backend.js';
import { waitFor } from '../../helpers/wait.js';
import { managementClient } from '../../helpers/management-client.js';
import { CLIENT_BIN, clientJson, runBin } from '../../helpers/cli-run.js';

let h: Harness;
beforeAll(async () => {
  h = await startGateway({ health: { interval_s: 3600 }, backends: { fx: stdioFixture(['--name', 'fx']), fy: stdioFixture(['--name', 'fy']) } });
});
afterAll(async () => h?.close());

describe('gateway-client tools search', { timeout: 60_000 }, () => {
  it('-o json is the API answer; the table lists the matches best first; no match is an empty table', async () => {
    const mine = await clientJson(h.url, ['tools', 'search', 'add two numbers', '--limit', '3']);
    expect(mine).toEqual((await managementClient(h.url).get('/tools/search?q=add%20two%20numbers&limit=3')).body);
    expect(mine.tools).toHaveLength(3);
    expect(['fx_add', 'fy_add']).toContain(mine.tools[0].name);

    const table = await runBin(CLIENT_BIN, ['-s', h.url, '-o', 'table', '--no-color', 'tools', 'search', 'add two numbers', '--limit', '2']);
    expect(table.code).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+BACKEND\s+SCORE\s+DESCRIPTION/);
    expect(lines[1]).toMatch(/^f[xy]_add\s+f[xy]\s+\d+\.\d\d\s+Adds two numbers/);

    expect(await clientJson(h.url, ['tools', 'search', 'xylophone quaternion'])).toEqual({ tools: [] });
    const bad = await runBin(CLIENT_BIN, ['-s', h.url, 'tools', 'search', 'echo', '--limit', 'many']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--limit/);
    expect((await runBin(CLIENT_BIN, ['-s', h.url, 'tools', 'search', 'echo', '--limit', '51'])).code).toBe(2);
  });
});

describe('TUI tools view search', { timeout: 60_000 }, () => {
  const controllers: TuiController[] = [];
  afterEach(() => {
    for (const c of controllers.splice(0)) c.quit();
    cleanup();
  });

  it('s searches by what the tool does, best first; an empty search shows every tool again', async () => {
    const main: ServerChoice = { name: 'main', url: h.url, source: 'file' };
    const tui = new TuiController({ servers: [main], active: main, pollMs: 300 }).start();
    controllers.push(tui);
    const r = render(<App tui={tui} />);
    const screen = () => stripVTControlCharacters(r.lastFrame() ?? '');
    const until = (pred: (s: string) => boolean, what: string) =>
      waitFor(() => (pred(screen()) ? screen() : undefined), what).catch((err: Error) => {
        throw new Error(`${err.message}\nscreen:\n${screen()}`);
      });
    r.stdin.write('3');
    const all = await until((s) => /Tools \(\d+\)/.test(s) && /^fx_add\s+fx/m.test(s), 'every tool');
    const total = /Tools \((\d+)\)/.exec(all)![1];
    r.stdin.write('s');
    r.stdin.write('which slow calls were aborted\r');
    const found = await until((s) => /Tools matching \(\d+\)/.test(s) && /SCORE/.test(s), 'the matches');
    const rows = found.split('\n').filter((l) => /^f[xy]_\S+\s+f[xy]\s+\d+\.\d\d/.test(l));
    expect(rows.slice(0, 3).some((l) => /^f[xy]_last_cancelled\s/.test(l))).toBe(true);
    const scores = rows.map((l) => Number(/\s(\d+\.\d\d)\s/.exec(l)![1]));
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    r.stdin.write('s');
    // The field opens with the last query: erase it, then submit nothing.
    r.stdin.write('\x15\r');
    await until((s) => new RegExp(`Tools \\(${total}\\)`).test(s) && !/SCORE/.test(s), 'every tool again');
  });
});
