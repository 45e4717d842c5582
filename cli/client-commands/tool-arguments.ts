/**
 * `--arg key=value`… and `--json '{…}'` into one arguments object. A value
 * is typed by the tool's input schema when it is known: a `string` property
 * keeps the text as is, any other type (number, boolean, object, array) is
 * read as JSON, so `--arg count=3` sends 3 and `--arg id=007` to a string
 * stays "007". Without a schema, text that parses as JSON is JSON.
 */
import { UsageFailure } from '../output/report-error.js';

type Schema = { properties?: Record<string, { type?: unknown }> } | undefined;

export function buildArguments(pairs: string[] | undefined, json: string | undefined, schema?: Schema): Record<string, unknown> {
  let args: Record<string, unknown> = {};
  if (json !== undefined) {
    const parsed = parseJsonObject(json);
    if ('notJson' in parsed) throw new UsageFailure(`--json is not valid JSON: ${parsed.notJson}`);
    if ('notObject' in parsed) throw new UsageFailure('--json must be a JSON object');
    args = { ...parsed.value };
  }
  for (const [key, value] of (pairs ?? []).map(splitPair)) args[key] = typed(value, schema?.properties?.[key]?.type);
  return args;
}

/** Tool arguments typed as JSON (here and in the TUI): an object, or why not (the parser's message, or not an object). */
export function parseJsonObject(text: string): { value: Record<string, unknown> } | { notJson: string } | { notObject: true } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { notJson: (err as Error).message };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { notObject: true };
  return { value: value as Record<string, unknown> };
}

/** Prompt arguments are strings by protocol. */
export function buildStringArguments(pairs: string[] | undefined): Record<string, string> {
  return Object.fromEntries((pairs ?? []).map(splitPair));
}

function typed(text: string, type: unknown): unknown {
  const types = Array.isArray(type) ? type : type === undefined ? [] : [type];
  if (types.includes('string')) return text;
  try {
    return JSON.parse(text);
  } catch {
    if (types.length > 0) throw new UsageFailure(`"${text}" is not a valid ${types.join(' or ')} (write it as JSON)`);
    return text;
  }
}

function splitPair(pair: string): [string, string] {
  const eq = pair.indexOf('=');
  if (eq <= 0) throw new UsageFailure(`--arg expects key=value, got "${pair}"`);
  return [pair.slice(0, eq), pair.slice(eq + 1)];
}
