#!/usr/bin/env node
/**
 * `gateway-client`: one-shot commands against a running gateway's management
 * API (and its MCP endpoint where the API has no route); with no command, a REPL.
 */
import { buildClientCli } from './client-commands/client-cli.js';
import { ReplCommand } from './repl/repl-command.js';
import { wantColor } from './output/colors.js';
import { runCli } from './run-cli.js';

const argv = process.argv.slice(2);
const cli = buildClientCli(wantColor(process.stdout, argv.includes('--no-color')));
cli.register(ReplCommand);
void runCli(cli, argv).then((code) => (process.exitCode = code));
