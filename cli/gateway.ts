#!/usr/bin/env node
/** `gateway`: the command line of the MCP gateway (clipanion). */
import { Cli, Builtins } from 'clipanion';
import { GATEWAY_VERSION } from '../runtime/version.js';
import { ServerCommand } from './commands/server.js';
import { ConfigValidateCommand } from './commands/config-validate.js';
import { BuildCommand } from './commands/build.js';
import { CleanCommand } from './commands/clean.js';

const cli = new Cli({ binaryLabel: 'MCP gateway', binaryName: 'gateway', binaryVersion: GATEWAY_VERSION });
cli.register(ServerCommand);
cli.register(ConfigValidateCommand);
cli.register(BuildCommand);
cli.register(CleanCommand);
cli.register(Builtins.HelpCommand);
cli.register(Builtins.VersionCommand);
void cli.runExit(process.argv.slice(2));
