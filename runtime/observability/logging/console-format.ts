/**
 * The console's format, decided in one place for the logger and for what
 * `gateway server` writes itself (its banner, the reason it could not start):
 * as asked, else `pretty` for a person at a terminal and JSON lines anywhere
 * else, so output read by a program is JSON from its first line to its last.
 */
export const LOG_FORMATS = ['pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export function consoleFormat(requested: LogFormat | undefined, stdout: { isTTY?: boolean } = process.stdout): LogFormat {
  return requested ?? (stdout.isTTY ? 'pretty' : 'json');
}
