/** `help` and `help COMMAND` in the REPL, from the command table. */
import type { Cli } from 'clipanion';
import type { ClientContext } from '../client-commands/client-command.js';
import { CLIENT_COMMANDS } from '../client-commands/index.js';
import type { Colors } from '../output/colors.js';

/** `gateway-client --help`: the same list, introduced for the command line. */
export function programHelp(cli: Cli<ClientContext>, c: Colors): string {
  return [
    `${c.bold('gateway-client')}: manage a running MCP gateway through its management API.`,
    '',
    `  $ gateway-client [-s URL] [-t TOKEN] [-o table|json|yaml] [--no-color] <command>`,
    `  $ gateway-client            ${c.dim('(no command: interactive shell on a terminal, one command per line otherwise)')}`,
    `  $ gateway-client <command> --help`,
    helpText(cli, [], c),
  ].join('\n');
}

export function helpText(cli: Cli<ClientContext>, words: string[], c: Colors): string {
  if (words.length > 0) {
    const command = CLIENT_COMMANDS.find((cls) => cls.paths?.some((p) => p.join(' ') === words.join(' ')));
    if (command) return cli.usage(command, { detailed: true, colored: cli.enableColors });
    return `No command "${words.join(' ')}". Type help for the list.\n`;
  }
  // Grouped by category in the order categories first appear; arguments shown as <name>.
  const entries = cli
    .definitions()
    .filter((d) => d.category)
    .map((d) => ({
      category: d.category!.trim(),
      words: d.path.replace(/^gateway-client /, '') + (d.usage.match(/ <[^>]+>/g) ?? []).join(''),
      description: (d.description ?? '').trim(),
    }));
  const width = Math.max(...entries.map((e) => e.words.length), 'exit, quit, Ctrl-D'.length);
  const lines: string[] = [];
  for (const category of [...new Set(entries.map((e) => e.category))]) {
    lines.push('', c.bold(category));
    for (const e of entries.filter((x) => x.category === category)) lines.push(`  ${e.words.padEnd(width)}  ${e.description}`);
  }
  lines.push(
    '',
    c.bold('REPL'),
    `  ${'help [COMMAND]'.padEnd(width)}  This list, or one command's options`,
    `  ${'exit, quit, Ctrl-D'.padEnd(width)}  Leave`,
    '',
    'Global options on any command: -s/--server URL, -t/--token TOKEN, -o/--output table|json|yaml, --no-color. Tab completes commands and names.',
    '',
  );
  return lines.join('\n');
}
