/**
 * Usage lines (`--help`, usage errors, the REPL's help and completion) name
 * what an option takes (`--limit N`, `-s,--server URL`) instead of
 * clipanion's `#0` placeholder, for every command of both programs; the
 * REPL still tells options that take a value from flags. The compiled
 * command table is read by a Node process of its own (vitest's module
 * resolution cannot load clipanion's ESM build).
 */
import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../../fixtures/spawn.js';
import { GATEWAY_BIN, runBin } from '../../helpers/cli-run.js';

interface Reading {
  usages: Record<string, string>;
  usageError: string;
  shape: { options: string[]; valueOptions: string[] };
}

/** Every gateway-client command's detailed usage, one usage error, and the REPL's view of `events list`. */
async function readClientTable(): Promise<Reading> {
  const dist = (path: string) => JSON.stringify(join(repoRoot(), 'dist', 'cli', path));
  const script = `
    const { buildClientCli } = await import(${dist('client-commands/client-cli.js')});
    const { CLIENT_COMMANDS } = await import(${dist('client-commands/index.js')});
    const { commandShapes } = await import(${dist('repl/command-shapes.js')});
    const cli = buildClientCli(false);
    const usages = Object.fromEntries(CLIENT_COMMANDS.map((c) => [c.paths[0].join(' '), cli.usage(c, { detailed: true })]));
    let usageError = '';
    try { cli.process(['events', 'list', '--limit', '0']); } catch (err) { usageError = cli.error(err, { colored: false }); }
    const s = commandShapes(cli).find((x) => x.path.join(' ') === 'events list');
    process.stdout.write(JSON.stringify({ usages, usageError, shape: { options: s.options, valueOptions: [...s.valueOptions] } }));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
  return JSON.parse(stdout) as Reading;
}

describe('usage lines', () => {
  it('name the value of every option of every gateway-client command, in help and in usage errors', async () => {
    const { usages, usageError } = await readClientTable();
    expect(Object.keys(usages).length).toBeGreaterThan(20);
    for (const [words, text] of Object.entries(usages)) {
      expect(text, words).not.toContain('#0');
      expect(text, words).toContain('-o,--output FORMAT');
    }
    for (const named of ['-s,--server URL', '-t,--token TOKEN', '--limit N', '--severity LEVEL', '--since TIME'])
      expect(usages['events list']).toContain(named);
    expect(usages['tools call']).toContain('--arg KEY=VALUE');
    expect(usages['containers logs']).toContain('--socket PATH');
    expect(usageError).toMatch(/^Usage Error: Invalid value for --limit: expected to be in the \[1; 1000\] range \(got 0\)/);
    expect(usageError).toContain('[--limit N]');
    expect(usageError).not.toContain('#0');
  });

  it('REPL completion still tells options that take a value from flags', async () => {
    const { shape } = await readClientTable();
    for (const option of ['-s', '--server', '-o', '--output', '--limit', '--severity', '--since']) expect(shape.valueOptions, option).toContain(option);
    expect(shape.valueOptions).not.toContain('--color');
    expect(shape.options).toContain('--color');
  });

  it('gateway --help and a command’s --help name them too', async () => {
    const all = await runBin(GATEWAY_BIN, ['--help']);
    expect(all.stdout).not.toContain('#0');
    expect(all.stdout).toContain('gateway server [--config,-c FILE] [--host HOST] [--port,-p PORT] [--log-level LEVEL]');
    expect(all.stdout).toContain('gateway stop [--all] [--force] [--timeout SECONDS]');
    const stop = await runBin(GATEWAY_BIN, ['stop', '--help']);
    expect(stop.stdout).toContain('--timeout SECONDS');
    expect(stop.stdout).not.toContain('#0');
  });
});
