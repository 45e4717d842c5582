#!/usr/bin/env node
/** `gateway`: the command line of the MCP gateway (clipanion). */
import { Builtins } from 'clipanion';
import { UsageCli } from './usage-cli.js';
import { GATEWAY_VERSION } from '../runtime/version.js';
import { ServerCommand } from './commands/server.js';
import { ConfigValidateCommand } from './commands/config-validate.js';
import { BuildCommand } from './commands/build.js';
import { CleanCommand } from './commands/clean.js';
import { StatusCommand } from './commands/status.js';
import { StopCommand } from './commands/stop.js';
import { TuiCommand } from './tui/tui-command.js';
import { runCli } from './run-cli.js';
import { wantColor } from './output/colors.js';
import { endQuietlyWhenStdoutCloses } from './output/closed-stdout.js';

endQuietlyWhenStdoutCloses();

const cli = new UsageCli({
  binaryLabel: 'MCP gateway',
  binaryName: 'gateway',
  binaryVersion: GATEWAY_VERSION,
  // clipanion colours its help whenever the terminal type could, even into a pipe.
  enableColors: wantColor(process.stdout),
});
cli.register(ServerCommand);
cli.register(StatusCommand);
cli.register(StopCommand);
cli.register(TuiCommand);
cli.register(ConfigValidateCommand);
cli.register(BuildCommand);
cli.register(CleanCommand);
cli.register(Builtins.HelpCommand);
cli.register(Builtins.VersionCommand);
void runCli(cli, process.argv.slice(2)).then((code) => (process.exitCode = code));
