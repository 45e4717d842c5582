/**
 * Step 2 of start-up: what records the gateway's life, built before
 * anything that could need it: the logger (console and file, redacted), the
 * event bus (each event also a log line), the audit log and telemetry.
 */
import type { GatewayConfig } from '../schemas/config.js';
import { LOG_LEVELS, type LogLevel } from '../schemas/log-levels.js';
import type { EventRecord } from '../schemas/records.js';
import { EventBus } from '../controller/event-bus.js';
import { AUDIT_LEVEL, createLogger, type Logger } from '../runtime/observability/logging/logger.js';
import type { Redactor } from '../runtime/observability/logging/redactor.js';
import { AuditLog } from '../runtime/observability/audit/audit-log.js';
import { initTelemetry, type Telemetry } from '../runtime/observability/telemetry/index.js';
import { consoleFormat, type LogFormat } from '../runtime/observability/logging/console-format.js';

export interface ObservabilityOptions {
  /** Overrides logging.level from the config. */
  logLevel?: string;
  /** Console format: `pretty` (for a person) or `json` (JSON lines). Default: pretty when stdout is a terminal. */
  logFormat?: LogFormat;
  /** A logger made elsewhere (tests); it must write through the same redactor. */
  logger?: Logger;
  /** 0: connection milestones only; 1 (-v): every connection step; 2 (-vv): also backend process output. */
  verbosity?: number;
}

export interface Observability {
  logger: Logger;
  audit: AuditLog;
  telemetry: Telemetry;
  events: EventBus;
}

export async function buildObservability(config: GatewayConfig, opts: ObservabilityOptions, redactor: Redactor): Promise<Observability> {
  const verbosity = opts.verbosity ?? 0;
  const logger =
    opts.logger ??
    createLogger({
      level: effectiveLevel(opts.logLevel ?? config.logging.level, verbosity),
      pretty: consoleFormat(opts.logFormat) === 'pretty',
      file: config.logging.file,
      // Off the request path: no log call of a proxied request waits for the disk.
      fileSync: false,
      redactor,
    });
  const events = new EventBus(config.events.buffer_size);
  // Every backend event is also a log line, so the console tells the story of a start.
  events.subscribe((e) => logger[eventLogLevel(e, verbosity)]({ event: e.stage, backend: e.backend || undefined }, e.message));
  const audit = new AuditLog({
    enabled: config.audit.enabled,
    file: config.audit.file,
    maxSizeMb: config.audit.max_size_mb,
    backupCount: config.audit.backup_count,
    logger: auditMirror(logger, config),
    redactor,
  });
  const telemetry = await initTelemetry({ logger: logger.child({ component: 'telemetry' }) });
  return { logger, audit, telemetry, events };
}

/**
 * Audit records always go to the audit file. They are also printed as log
 * lines (at the `audit` level, which survives warn and error) only when asked:
 * `audit.console: true`, or a debug log level. A load test otherwise writes
 * hundreds of megabytes of them to stdout.
 */
function auditMirror(logger: Logger, config: GatewayConfig): Logger | undefined {
  if (!config.audit.console && !logger.isLevelEnabled('debug')) return undefined;
  const child = logger.child({ component: 'audit' });
  if (logger.level !== 'silent' && logger.levelVal > AUDIT_LEVEL) child.level = 'audit';
  return child;
}

/**
 * -vv needs debug (backend process output is logged at debug), -v needs info
 * (connection progress): verbosity can make the configured level more
 * verbose, never less.
 */
export function effectiveLevel(level: string, verbosity: number): string {
  const floor: LogLevel | undefined = verbosity >= 2 ? 'debug' : verbosity === 1 ? 'info' : undefined;
  if (floor === undefined) return level;
  const rank = LOG_LEVELS.indexOf(level as LogLevel);
  return rank !== -1 && rank < LOG_LEVELS.indexOf(floor) ? level : floor;
}

/** Progress steps are debug noise unless -v asked for them; failures always show. */
const PROGRESS_STAGES = new Set(['registered', 'connecting', 'phase_changed', 'retry_scheduled']);

function eventLogLevel(e: EventRecord, verbosity: number): 'debug' | 'info' | 'warn' | 'error' {
  if (e.severity === 'error') return 'error';
  if (PROGRESS_STAGES.has(e.stage)) return verbosity >= 1 ? 'info' : 'debug';
  return e.severity === 'warning' ? 'warn' : e.severity === 'debug' ? 'debug' : 'info';
}
