#!/usr/bin/env node
/** `gateway-tui`: the terminal UI, started directly (the same as `gateway tui`). */
import { Builtins, Command } from 'clipanion';
import { UsageCli } from './usage-cli.js';
import { GATEWAY_VERSION } from '../runtime/version.js';
import { TuiCommand } from './tui/tui-command.js';
import { runCli } from './run-cli.js';
import { wantColor } from './output/colors.js';
import { endQuietlyWhenStdoutCloses } from './output/closed-stdout.js';

endQuietlyWhenStdoutCloses();

class DirectTuiCommand extends TuiCommand {
  static override paths = [Command.Default];
}

const cli = new UsageCli({
  binaryLabel: 'MCP gateway TUI',
  binaryName: 'gateway-tui',
  binaryVersion: GATEWAY_VERSION,
  enableColors: wantColor(process.stdout),
});
cli.register(DirectTuiCommand);
cli.register(Builtins.HelpCommand);
cli.register(Builtins.VersionCommand);
void runCli(cli, process.argv.slice(2)).then((code) => (process.exitCode = code));
