/** `help` and `help COMMAND` in the REPL, from the command table. */
import type { Cli } from 'clipanion';
import type { ClientContext } from '../client-commands/client-command.js';
import { CLIENT_COMMANDS } from '../client-commands/index.js';
import type { Colors } from '../output/colors.js';

export function helpText(cli: Cli<ClientContext>, words: string[], c: Colors): string {
  if (words.length > 0) {
    const command = CLIENT_COMMANDS.find((cls) => cls.paths?.some((p) => p.join(' ') === words.join(' ')));
    if (command) return cli.usage(command, { detailed: true, colored: cli.enableColors });
    return `No command "${words.join(' ')}". Type help for the list.\n`;
  }
  const defs = cli.definitions().filter((d) => d.category);
  const width = Math.max(...defs.map((d) => d.path.length)) - 'gateway-client '.length;
  const lines: string[] = [];
  let category: string | undefined;
  for (const d of defs) {
    if (d.category !== category) {
      category = d.category;
      lines.push('', c.bold(category ?? ''));
    }
    lines.push(`  ${d.path.replace(/^gateway-client /, '').padEnd(width)}  ${d.description ?? ''}`);
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
