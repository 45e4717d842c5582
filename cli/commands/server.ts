/** `gateway server`: run the gateway in the foreground until SIGINT/SIGTERM or POST /shutdown. */
import { Command, Option } from 'clipanion';
import { Gateway, type LogFormat } from '../../api/gateway.js';
import { GatewayError } from '../../schemas/errors.js';
import { redactor } from '../../runtime/observability/logging/redactor.js';
import { GATEWAY_VERSION } from '../../runtime/version.js';
import { flushLogsSync } from '../../runtime/observability/logging/logger.js';

export class ServerCommand extends Command {
  static override paths = [['server']];
  static override usage = Command.Usage({
    description: 'Start the gateway',
    details: 'Reads the config (--config, else config.yaml or config.yml in the working directory), connects every backend and serves MCP on /mcp and /sse.',
    examples: [
      ['Start on the default address', 'gateway server'],
      ['Another config and port', 'gateway server --config my.yaml --port 9100 -v'],
    ],
  });

  config = Option.String('--config,-c', { description: 'Config file path' });
  host = Option.String('--host', { description: 'Listen host (default from config, 127.0.0.1)' });
  port = Option.String('--port,-p', { description: 'Listen port (default from config, 9000)' });
  logLevel = Option.String('--log-level', { description: 'trace, debug, info, warn, audit, error, fatal or silent' });
  logFormat = Option.String('--log-format', {
    description: 'Console log format: pretty (for a person) or json (JSON lines); default pretty when stdout is a terminal, else json',
  });
  verbose = Option.Counter('-v,--verbose', 0, { description: '-v: backend connection progress; -vv: also full backend process output' });

  async execute(): Promise<number> {
    const port = this.port === undefined ? undefined : Number(this.port);
    if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
      this.context.stderr.write(`Invalid --port: ${this.port}\n`);
      return 2;
    }
    if (this.logLevel !== undefined && !LOG_LEVELS.includes(this.logLevel)) {
      this.context.stderr.write(`Invalid --log-level: ${this.logLevel} (expected one of ${LOG_LEVELS.join(', ')})\n`);
      return 2;
    }
    if (this.logFormat !== undefined && !LOG_FORMATS.includes(this.logFormat as LogFormat)) {
      this.context.stderr.write(`Invalid --log-format: ${this.logFormat} (expected pretty or json)\n`);
      return 2;
    }
    let gateway: Gateway;
    try {
      gateway = await Gateway.start({
        configPath: this.config,
        host: this.host,
        port,
        logLevel: this.logLevel,
        logFormat: this.logFormat as LogFormat | undefined,
        verbosity: this.verbose,
      });
    } catch (err) {
      // Not through the logger (it may not exist yet), so redact here: a
      // resolved secret can be part of an error raised while starting.
      const text = err instanceof GatewayError ? err.message : ((err as Error).stack ?? String(err));
      this.context.stderr.write(`${redactor.redact(text)}\n`);
      return 1;
    }
    // Start-up lines may still sit in the log buffer; they belong before the banner.
    flushLogsSync();
    this.context.stdout.write(
      [
        `MCP gateway ${GATEWAY_VERSION} is listening`,
        `  Streamable HTTP  ${gateway.url}/mcp`,
        `  SSE              ${gateway.url}/sse`,
        `  Management API   ${gateway.url}/manage/v1`,
        '',
      ].join('\n'),
    );
    return new Promise<number>((resolve) => {
      const stop = (signal: string) => {
        gateway.logger.info({ signal }, 'stop requested');
        void gateway.shutdown().then(() => resolve(0));
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
      gateway.onStopped(() => resolve(0));
    });
  }
}

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'audit', 'error', 'fatal', 'silent'];
const LOG_FORMATS: readonly LogFormat[] = ['pretty', 'json'];
