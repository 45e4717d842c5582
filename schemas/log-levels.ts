/**
 * Gateway log levels, most verbose first: pino's, plus `audit` between warn
 * and error (spec 6.2: setting the level to warn must not silence audit
 * records). The config schema, the logger and `gateway server --log-level`
 * all read this list. No imports: the CLI loads it without the schema library.
 */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'audit', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
