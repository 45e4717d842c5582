/** The gateway-client command table as a clipanion Cli (one-shot use and the REPL share it). */
import { Builtins, type Cli } from 'clipanion';
import { UsageCli } from '../usage-cli.js';
import { GATEWAY_VERSION } from '../../runtime/version.js';
import type { ClientContext } from './client-command.js';
import { CLIENT_COMMANDS } from './index.js';

export function buildClientCli(enableColors: boolean): Cli<ClientContext> {
  const cli = new UsageCli<ClientContext>({
    binaryLabel: 'MCP gateway client',
    binaryName: 'gateway-client',
    binaryVersion: GATEWAY_VERSION,
    enableColors,
  });
  for (const command of CLIENT_COMMANDS) cli.register(command);
  cli.register(Builtins.HelpCommand);
  cli.register(Builtins.VersionCommand);
  return cli;
}
