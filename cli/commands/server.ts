/** `gateway server`: run the gateway in the foreground until SIGINT/SIGTERM or POST /shutdown. */
import { Command, Option } from 'clipanion';
import { Gateway } from '../../api/gateway.js';
import { GatewayError } from '../../schemas/errors.js';
import { GATEWAY_VERSION } from '../../runtime/version.js';

export class ServerCommand extends Command {
  static override paths = [['server']];
  static override usage = Command.Usage({
    description: 'Start the gateway',
    details: 'Reads the config (--config, else config.yaml or config.yml in the working directory), connects every backend and serves MCP on /mcp and /sse.',
    examples: [['Start on the default address', 'gateway server'], ['Another config and port', 'gateway server --config my.yaml --port 9100 -v']],
  });

  config = Option.String('--config,-c', { description: 'Config file path' });
  host = Option.String('--host', { description: 'Listen host (default from config, 127.0.0.1)' });
  port = Option.String('--port,-p', { description: 'Listen port (default from config, 9000)' });
  logLevel = Option.String('--log-level', { description: 'trace, debug, info, warn, audit, error, fatal or silent' });
  verbose = Option.Counter('-v,--verbose', 0, { description: '-v: backend connection progress; -vv: also full backend process output' });

  async execute(): Promise<number> {
    const port = this.port === undefined ? undefined : Number(this.port);
    if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
      this.context.stderr.write(`Invalid --port: ${this.port}\n`);
      return 2;
    }
    const level = this.verbose >= 2 ? 'debug' : (this.logLevel ?? (this.verbose === 1 ? 'info' : undefined));
    let gateway: Gateway;
    try {
      gateway = await Gateway.start({
        configPath: this.config,
        host: this.host,
        port,
        logLevel: level,
        verbosity: this.verbose,
      });
    } catch (err) {
      this.context.stderr.write(`${err instanceof GatewayError ? err.message : (err as Error).stack ?? String(err)}\n`);
      return 1;
    }
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
