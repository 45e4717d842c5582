/**
 * `-o table|json|yaml`. JSON is the API's answer exactly (so it pipes into
 * jq), YAML the same data for people who prefer it; `table` is per command.
 */
import { stringify } from 'yaml';
import { isTerminal } from './colors.js';

export const OUTPUT_FORMATS = ['table', 'json', 'yaml'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export function isOutputFormat(value: string): value is OutputFormat {
  return (OUTPUT_FORMATS as readonly string[]).includes(value);
}

/** Table for a person at a terminal, JSON for a program. */
export function defaultFormat(stdout: object): OutputFormat {
  return isTerminal(stdout) ? 'table' : 'json';
}

export function renderData(format: 'json' | 'yaml', data: unknown): string {
  return format === 'json' ? `${JSON.stringify(data, null, 2)}\n` : stringify(data);
}
