/**
 * `gateway server`: run the gateway in the foreground until SIGINT/SIGTERM or
 * POST /shutdown, or with `--detach` in the background. Either way the
 * running server owns a session file (cli/sessions/) for `gateway status`
 * and `gateway stop`.
 */
import { Command, Option } from 'clipanion';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import type { Gateway } from '../../app/gateway.js';
import { claimName, precheckName, releaseOnExit, SessionNameTaken } from '../sessions/server-session.js';
import { DEFAULT_SESSION_NAME, sessionNameProblem } from '../sessions/session-record.js';
import { defaultLogFile, notifyDetachParent, startDetached, takeDetachedLogFile } from '../sessions/detach.js';
import { banner, startFailure, type StartFailure } from './server-output.js';
import { consoleFormat, LOG_FORMATS } from '../../runtime/observability/logging/console-format.js';
import { LOG_LEVELS } from '../../schemas/log-levels.js';
import { acceptedBy, integerValue, oneOf } from '../option-values.js';

export class ServerCommand extends Command {
  static override paths = [['server']];
  static override usage = Command.Usage({
    description: 'Start the gateway',
    details:
      'Reads the config (--config, else config.yaml or config.yml in the working directory), connects every backend and serves MCP on /mcp and /sse. ' +
      'It prints its banner (and with --detach returns) as soon as it listens: backends connect in the background (see `gateway status`); ' +
      'with --wait it first waits until every backend has had its first connect attempt. Each running server is a named session (see `gateway status`).',
    examples: [
      ['Start on the default address', 'gateway server'],
      ['Another config and port', 'gateway server --config my.yaml --port 9100 -v'],
      ['In the background, as session "dev"', 'gateway server -d --name dev --port 9100'],
    ],
  });

  config = Option.String('--config,-c', { description: 'Config file path' });
  host = Option.String('--host', { description: 'Listen host (default from config, 127.0.0.1)' });
  port = Option.String('--port,-p', { description: 'Listen port (default from config, 9000)', validator: integerValue({ minimum: 0, maximum: 65535 }) });
  logLevel = Option.String('--log-level', { description: LOG_LEVELS.join(', '), validator: oneOf(LOG_LEVELS) });
  logFormat = Option.String('--log-format', {
    description:
      'Console log format: pretty (for a person) or json (JSON lines, the start-up banner and a failure to start too); default pretty when stdout is a terminal, else json',
    validator: oneOf(LOG_FORMATS),
  });
  verbose = Option.Counter('-v,--verbose', 0, { description: '-v: backend connection progress; -vv: also full backend process output' });
  detach = Option.Boolean('-d,--detach', false, { description: 'Run in the background; returns once the server listens (exit 1 with its error otherwise)' });
  name = Option.String('--name', {
    description: `Session name (default "${DEFAULT_SESSION_NAME}"; a foreground server without --name takes the next free default-N)`,
    validator: acceptedBy(sessionNameProblem),
  });
  logFile = Option.String('--log-file', { description: 'With --detach: where the output goes (default <state>/logs/<name>.log)' });
  wait = Option.Boolean('--wait', false, {
    description: 'Print the banner (with --detach: return) only once every backend has had its first connect attempt (for scripts)',
  });

  async execute(): Promise<number> {
    const problem = this.usageProblem();
    if (problem) {
      this.fail({ message: problem });
      return 2;
    }
    if (this.detach) return this.runDetached();
    return this.runForeground();
  }

  /** The console's format: what the logger writes, and the banner and a failure to start with it. */
  private get format() {
    return consoleFormat(this.logFormat);
  }

  /** Why the server does not start, on stderr in the console's format; redacted when the secrets may be known. */
  private fail(failure: StartFailure, redactor?: { redact(text: string): string }): void {
    const line = startFailure(this.format, failure);
    this.context.stderr.write(redactor ? redactor.redact(line) : line);
  }

  private usageProblem(): string | undefined {
    if (this.logFile !== undefined && !this.detach)
      return '--log-file applies to --detach (a foreground server logs to the terminal; logging.file in the config adds a file)';
    return undefined;
  }

  private async runDetached(): Promise<number> {
    const name = this.name ?? DEFAULT_SESSION_NAME;
    try {
      precheckName(name);
    } catch (err) {
      this.context.stderr.write(`${(err as Error).message}\n`);
      return 1;
    }
    const logFile = resolve(this.logFile ?? defaultLogFile(name));
    const args = [
      ...(this.config !== undefined ? ['--config', resolve(this.config)] : []),
      ...(this.host !== undefined ? ['--host', this.host] : []),
      ...(this.port !== undefined ? ['--port', String(this.port)] : []),
      ...(this.logLevel !== undefined ? ['--log-level', this.logLevel] : []),
      ...(this.logFormat !== undefined ? ['--log-format', this.logFormat] : []),
      ...(this.verbose > 0 ? [`-${'v'.repeat(this.verbose)}`] : []),
      ...(this.wait ? ['--wait'] : []),
      '--name',
      name,
    ];
    const result = await startDetached({ entry: fileURLToPath(new URL('../gateway.js', import.meta.url)), args, logFile });
    if (!result.ok) {
      this.context.stderr.write(`gateway server failed to start (exit code ${result.exitCode}):\n${result.output}`);
      if (!result.output.endsWith('\n')) this.context.stderr.write('\n');
      return 1;
    }
    this.context.stdout.write(
      [
        `Started gateway session "${result.name}" (pid ${result.pid})`,
        `  URL       ${result.url}`,
        `  Log file  ${logFile}`,
        `Stop it with: gateway stop ${result.name}`,
        '',
      ].join('\n'),
    );
    return 0;
  }

  private async runForeground(): Promise<number> {
    // Loaded here, not at the top: `gateway status`, `stop` and `--help` should not pay for the whole server.
    const [{ Gateway }, { GatewayError }, { Redactor }, { flushLogsSync }] = await Promise.all([
      import('../../app/gateway.js'),
      import('../../schemas/errors.js'),
      import('../../runtime/observability/logging/redactor.js'),
      import('../../runtime/observability/logging/logger.js'),
    ]);
    const detachedLogFile = takeDetachedLogFile();
    // The gateway's redactor, made here so a start-up error is redacted with the secrets it had resolved.
    const redactor = new Redactor();
    let gateway: Gateway;
    try {
      precheckName(this.name);
      gateway = await Gateway.start({
        configPath: this.config,
        host: this.host,
        port: this.port,
        logLevel: this.logLevel,
        logFormat: this.format,
        verbosity: this.verbose,
        redactor,
        // The banner (and a detached start's return) comes as soon as the port is ours, unless --wait asks for the backends.
        waitForBackends: this.wait,
      });
    } catch (err) {
      // Not through the logger (it may not exist yet), so redacted here: a
      // resolved secret can be part of an error raised while starting.
      if (err instanceof GatewayError) this.fail({ message: err.message, code: err.code, details: err.details }, redactor);
      else if (err instanceof SessionNameTaken) this.fail({ message: err.message }, redactor);
      else this.fail({ message: (err as Error).stack ?? String(err) }, redactor);
      return 1;
    }
    const address = hostAndPort(gateway.url);
    const management = gateway.managementUrl === gateway.url ? undefined : hostAndPort(gateway.managementUrl);
    let session: string;
    try {
      session = claimName(this.name, {
        pid: process.pid,
        ...address,
        ...(management && { management_host: management.host, management_port: management.port }),
        config: gateway.controller.loaded.filePath,
        log_file: detachedLogFile ?? null,
        started_at: new Date().toISOString(),
      }).name;
    } catch (err) {
      flushLogsSync();
      this.fail({ message: (err as Error).message }, redactor);
      await gateway.shutdown();
      return 1;
    }
    const release = releaseOnExit(session);
    // Listening before the banner: a script may stop the gateway as soon as it reads it (or `gateway server -d`
    // returns), and a signal that comes before there is a listener kills the process without a clean stop.
    const stopped = new Promise<number>((resolveExit) => {
      const done = () => {
        release();
        resolveExit(0);
      };
      let stopping = false;
      // `on`, not `once`: while write-file-atomic writes a file (pins, skill state) signal-exit listens too,
      // and re-raises a signal it believes no one else handles: that killed the gateway mid-stop. A second
      // signal stops at once, as it did.
      const onSignal = (signal: NodeJS.Signals) => {
        if (stopping) {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
          process.kill(process.pid, signal);
          return;
        }
        stopping = true;
        gateway.logger.info({ signal }, 'stop requested');
        void gateway.shutdown().then(done);
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      gateway.onStopped(done);
    });
    gateway.logger.info({ session }, `session ${session} (stop with: gateway stop ${session})`);
    // Start-up lines may still sit in the log buffer; they belong before the banner.
    flushLogsSync();
    this.context.stdout.write(banner(this.format, { url: gateway.url, managementUrl: gateway.managementUrl, session }));
    if (detachedLogFile) notifyDetachParent({ name: session, url: gateway.url, pid: process.pid });
    return stopped;
  }
}

/** `http://[::1]:9000` → `{ host: '::1', port: 9000 }`, as a session file records it. */
function hostAndPort(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname.replace(/^\[|\]$/g, ''), port: Number(parsed.port || 80) };
}
