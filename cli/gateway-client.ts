#!/usr/bin/env node
/**
 * `gateway-client`: one-shot commands against a running gateway's management
 * API (and its MCP endpoint where the API has no route); with no command, a REPL.
 */
import { buildClientCli } from './client-commands/client-cli.js';
import { ReplCommand } from './repl/repl-command.js';
import { colors, wantColor } from './output/colors.js';
import { programHelp } from './repl/help.js';
import { runCli } from './run-cli.js';
import { endQuietlyWhenStdoutCloses } from './output/closed-stdout.js';

endQuietlyWhenStdoutCloses();
const argv = process.argv.slice(2);
const colored = wantColor(process.stdout, argv.includes('--no-color'));
const cli = buildClientCli(colored);
cli.register(ReplCommand);
if (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h')) {
  // With a default command (the REPL) clipanion would describe only that one: list them all.
  process.stdout.write(programHelp(cli, colors(colored)));
} else {
  void runCli(cli, argv).then((code) => (process.exitCode = code));
}
