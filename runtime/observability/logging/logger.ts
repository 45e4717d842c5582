/**
 * The gateway's pino logger factory.
 *
 * Redaction happens in `hooks.streamWrite`, on the final serialized line,
 * because that single place sees everything a line can carry: the message,
 * nested fields, serialized errors (message and stack) and child bindings.
 * Every destination (console, pretty console, file) is fed from that hook, so
 * none of them can receive an unredacted line.
 */
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';
import { createPrettyStream } from './pretty-stream.js';
import type { Redactor } from './redactor.js';

/**
 * `audit` sits between warn (40) and error (50) so that the common production
 * setting `level: warn` still lets audit lines through.
 */
export const AUDIT_LEVEL = 45;
export const CUSTOM_LEVELS = { audit: AUDIT_LEVEL } as const;

export type Logger = PinoLogger<'audit'>;

export interface CreateLoggerOptions {
  /** A pino level name, `audit`, or `silent`. */
  level: string;
  /** Human-readable console output instead of JSON lines. */
  pretty?: boolean;
  /** Also append JSON lines to this file (parent directories are created). */
  file?: string;
  /**
   * Write the file synchronously (default true: every line is on disk when
   * the log call returns). The gateway passes false so that no log call on
   * the request path (the audit mirror line of every MCP operation) waits
   * for the disk; pino then flushes the file when the process exits.
   */
  fileSync?: boolean;
  /** Applied to every line written: the gateway's own, which its secret store registers into. */
  redactor: Redactor;
  name?: string;
  /** Console destination; defaults to stdout. Tests pass a capturing stream. */
  destination?: DestinationStream;
  /** Colour the pretty output; defaults to true only when writing to a terminal. */
  colorize?: boolean;
}

export function createLogger(opts: CreateLoggerOptions): Logger {
  const consoleOut = consoleStream(opts);
  const stream = opts.file === undefined ? consoleOut : pino.multistream(fanOut(consoleOut, opts.file, opts.fileSync ?? true));

  return pino<'audit', false>(
    {
      level: opts.level,
      customLevels: CUSTOM_LEVELS,
      ...(opts.name === undefined ? {} : { name: opts.name }),
      // `error` is a common key for caught errors; without a serializer an
      // Error serializes as `{}` and the message and stack are lost.
      serializers: { err: pino.stdSerializers.err, error: pino.stdSerializers.err },
      hooks: { streamWrite: (line) => opts.redactor.redact(line) },
    },
    stream,
  );
}

/** A logger that discards everything, for tests and for components built without one. */
export function silentLogger(): Logger {
  return pino<'audit', false>({ level: 'silent', customLevels: CUSTOM_LEVELS });
}

function consoleStream(opts: CreateLoggerOptions): DestinationStream {
  if (!opts.pretty) {
    // Asynchronous like pino's default; pino flushes it on process exit.
    return opts.destination ?? bufferedDestination(1);
  }
  return createPrettyStream({
    destination: opts.destination ?? process.stdout,
    colorize: opts.colorize ?? (opts.destination === undefined && process.stdout.isTTY === true),
    customLevels: CUSTOM_LEVELS,
  });
}

/**
 * An asynchronous destination that gathers lines into 4 KiB writes: under load
 * every proxied call adds an audit line, and one write per line costs a
 * syscall and a thread-pool round trip each. A timer writes out whatever is
 * buffered within FLUSH_INTERVAL_MS, so a quiet gateway's lines still appear
 * promptly; pino flushes the rest on exit.
 */
const FLUSH_INTERVAL_MS = 200;

const bufferedStreams = new Set<ReturnType<typeof pino.destination>>();

/**
 * Writes out every buffered log line now, synchronously: for output that must
 * come after the log lines so far (the CLI's start-up banner).
 */
export function flushLogsSync(): void {
  for (const stream of bufferedStreams) {
    try {
      stream.flushSync();
    } catch {
      // Not open yet or already closed: nothing of ours is waiting in it.
    }
  }
}

function bufferedDestination(dest: number | string, extra: { mkdir?: boolean } = {}): pino.DestinationStream {
  const stream = pino.destination({ dest, sync: false, minLength: 4096, ...extra });
  bufferedStreams.add(stream);
  // SonicBoom's flush() writes even when nothing is buffered (a zero-byte write on the
  // thread pool, and a wake-up when it completes): flush only after something was written.
  // A flush during a write in progress does nothing, and lines added meanwhile stay
  // buffered: so each completed write counts as "something written" too, and the next
  // tick flushes what it left behind (one zero-byte flush per burst, not one per tick).
  let written = false;
  const write = stream.write.bind(stream);
  stream.write = (data: string) => {
    written = true;
    return write(data);
  };
  stream.on('write', (bytes: number) => {
    if (bytes > 0) written = true;
  });
  const timer = setInterval(() => {
    if (!written) return;
    written = false;
    try {
      stream.flush();
    } catch {
      // The stream is closing: nothing to do.
    }
  }, FLUSH_INTERVAL_MS);
  timer.unref();
  stream.once('close', () => {
    clearInterval(timer);
    bufferedStreams.delete(stream);
  });
  return stream;
}

function fanOut(consoleOut: DestinationStream, file: string, sync: boolean): pino.StreamEntry[] {
  // Asynchronous destinations are flushed synchronously by pino on process exit.
  const fileStream = sync ? pino.destination({ dest: file, mkdir: true, sync }) : bufferedDestination(file, { mkdir: true });
  // Entries at the lowest level: the logger's own level is the only filter.
  return [
    { level: 'trace', stream: consoleOut },
    { level: 'trace', stream: fileStream },
  ];
}
