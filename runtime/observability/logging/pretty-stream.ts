/**
 * Human-readable console output built on pino-pretty's formatter.
 *
 * pino-pretty is run in-process and synchronously (its `prettyFactory`),
 * not as a worker transport: the logger's `streamWrite` hook has already
 * redacted the JSON line when it reaches `write`, so what gets prettified is
 * the redacted line, and tests can read the output as soon as the log call
 * returns.
 */
import PinoPretty from 'pino-pretty';
import type { DestinationStream } from 'pino';

export interface PrettyStreamOptions {
  /** Where formatted text goes. */
  destination: DestinationStream;
  colorize: boolean;
  /** Level names beyond pino's own, so they print as e.g. `AUDIT` instead of `USERLVL`. */
  customLevels: Record<string, number>;
}

export function createPrettyStream(opts: PrettyStreamOptions): DestinationStream {
  const format = PinoPretty.prettyFactory({
    colorize: opts.colorize,
    customLevels: opts.customLevels,
    // Keep pino's built-in levels alongside the custom ones.
    useOnlyCustomProps: false,
    translateTime: 'SYS:standard',
    ignore: 'pid,hostname',
    // The full audit record is in the audit file and in JSON output; here one line is enough.
    customPrettifiers: { audit: (value: unknown) => compactAudit(value) },
  });
  return {
    write(line: string): void {
      opts.destination.write(format(line));
    },
  };
}

/**
 * The fields of an audit record that its log message does not already show
 * (method, target, status, latency and error are in the message), as
 * `key=value` pairs on one line.
 */
function compactAudit(value: unknown): string {
  if (typeof value !== 'object' || value === null) return String(value);
  const r = value as {
    event_id?: unknown;
    source?: { session_id?: unknown; client_ip?: unknown; user_id?: unknown };
    target?: { original_name?: unknown; capability_name?: unknown };
    metadata?: Record<string, unknown>;
  };
  const pairs: Array<[string, unknown]> = [
    ['event_id', r.event_id],
    ['session', r.source?.session_id],
    ['client_ip', r.source?.client_ip],
    ['user', r.source?.user_id],
    ['original_name', r.target?.original_name !== r.target?.capability_name ? r.target?.original_name : undefined],
    ...Object.entries(r.metadata ?? {}),
  ];
  return pairs
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
}
