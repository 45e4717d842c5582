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
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch (err) {
      throw new UsageFailure(`--json is not valid JSON: ${(err as Error).message}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageFailure('--json must be a JSON object');
    args = { ...(parsed as Record<string, unknown>) };
  }
  for (const [key, value] of (pairs ?? []).map(splitPair)) args[key] = typed(value, schema?.properties?.[key]?.type);
  return args;
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
