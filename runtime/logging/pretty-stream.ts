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
  });
  return {
    write(line: string): void {
      opts.destination.write(format(line));
    },
  };
}
