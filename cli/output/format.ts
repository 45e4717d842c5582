/**
 * `-o table|json|yaml`. JSON is the API's answer exactly (so it pipes into
 * jq), YAML the same data for people who prefer it; `table` is per command,
 * drawn from a terminal-safe copy of the data (./terminal-safe.ts): text from
 * backends, registries and events never reaches the terminal as control
 * characters. This is the one place that decides it for every command.
 */
import { stringify } from 'yaml';
import { isTerminal } from './colors.js';
import { terminalSafeData } from './terminal-safe.js';

export const OUTPUT_FORMATS = ['table', 'json', 'yaml'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** Table for a person at a terminal, JSON for a program. */
export function defaultFormat(stdout: object): OutputFormat {
  return isTerminal(stdout) ? 'table' : 'json';
}

/** A whole answer: JSON (indented), YAML, or the command's table drawn from terminal-safe data. */
export function renderOutput<T>(format: OutputFormat, data: T, table: (safe: T) => string): string {
  if (format === 'table') return table(terminalSafeData(data));
  return renderData(format, data);
}

/** One record of a stream: a JSON line, a YAML document, or the command's line drawn from terminal-safe data. */
export function renderRecord<T>(format: OutputFormat, data: T, line: (safe: T) => string): string {
  if (format === 'json') return `${escapeDelAndC1(JSON.stringify(data), 'json')}\n`;
  if (format === 'yaml') return `---\n${renderData('yaml', data)}`;
  return line(terminalSafeData(data));
}

export function renderData(format: 'json' | 'yaml', data: unknown): string {
  return escapeDelAndC1(format === 'json' ? `${JSON.stringify(data, null, 2)}\n` : stringify(data), format);
}

/**
 * JSON.stringify escapes C0 controls, and yaml writes any string holding a
 * control character double-quoted with C0 escaped; both leave DEL and the C1
 * controls (U+007F-U+009F, CSI among them) as they are, and a terminal may
 * act on them. Both formats write them only inside double-quoted strings,
 * where an escape is the same data.
 */
function escapeDelAndC1(text: string, format: 'json' | 'yaml'): string {
  return text.replace(DEL_AND_C1, (ch) => {
    const hex = ch.charCodeAt(0).toString(16);
    return format === 'json' ? `\\u00${hex}` : `\\x${hex}`;
  });
}

const DEL_AND_C1 = /[\u007f-\u009f]/g;
