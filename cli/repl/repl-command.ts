/** gateway-client with no command: the REPL (interactive on a terminal, one command per line otherwise). */
import { Command } from 'clipanion';
import type { WriteStream } from 'node:tty';
import { ClientCommand, type Io } from '../client-commands/client-command.js';
import { buildClientCli } from '../client-commands/client-cli.js';
import { isTerminal } from '../output/colors.js';
import type { LineContext } from './run-line.js';

export class ReplCommand extends ClientCommand {
  static override paths = [Command.Default];
  static override usage = Command.Usage({
    description: 'Interactive shell (no command given)',
    details:
      "On a terminal: the commands without the program name, tab completion (commands and live names), history in <state>/client_history and a status line. With standard input not a terminal: one command per line; the exit code is the last command's.",
  });

  async run(io: Io): Promise<number> {
    const d = this.context.defaults ?? {};
    const ctx: LineContext = {
      cli: buildClientCli(io.c.isColorSupported),
      // The REPL's own options become every command's defaults.
      defaults: {
        server: io.client.baseUrl,
        mcpServer: io.mcpUrl,
        token: this.token ?? d.token,
        mcpToken: io.mcpToken,
        output: this.output ?? d.output,
        color: this.color ?? d.color,
      },
      c: io.c,
      stdout: this.context.stdout,
      stderr: this.context.stderr,
    };
    const { runInteractive, runScript } = await import('./repl.js');
    const stdin = process.stdin;
    if (stdin.isTTY && isTerminal(this.context.stdout))
      return runInteractive({ ...ctx, client: io.client, cli: ctx.cli }, stdin, this.context.stdout as WriteStream);
    return runScript(ctx, stdin);
  }
}
