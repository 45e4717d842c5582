/** One REPL line: a REPL word (help, exit) or a gateway-client command run through the shared command table. */
import type { Cli } from 'clipanion';
import type { Writable } from 'node:stream';
import type { ClientContext, GlobalDefaults } from '../client-commands/client-command.js';
import type { Colors } from '../output/colors.js';
import { EXIT } from '../output/exit-codes.js';
import { runCli } from '../run-cli.js';
import { helpText } from './help.js';
import { lineToArgv } from './split-words.js';

export interface LineContext {
  cli: Cli<ClientContext>;
  defaults: GlobalDefaults;
  c: Colors;
  stdout: Writable;
  stderr: Writable;
}

/** The command's exit code; 'exit' to leave; undefined for a blank or comment line. */
export async function runLine(line: string, ctx: LineContext, signal: AbortSignal): Promise<number | 'exit' | undefined> {
  const trimmed = line.trim();
  if (trimmed === '' || trimmed.startsWith('#')) return undefined;
  const { argv, unterminated } = lineToArgv(trimmed);
  if (unterminated) {
    ctx.stderr.write(`${ctx.c.red('Usage error:')} unterminated quote\n`);
    return EXIT.usage;
  }
  const [first, ...rest] = argv;
  if (first === 'exit' || first === 'quit') return 'exit';
  if (first === 'help') {
    ctx.stdout.write(helpText(ctx.cli, rest, ctx.c));
    return EXIT.ok;
  }
  const context: Partial<ClientContext> = { stdout: ctx.stdout, stderr: ctx.stderr, defaults: ctx.defaults, signal };
  return runCli(ctx.cli, argv, context);
}
