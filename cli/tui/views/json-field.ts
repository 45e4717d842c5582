/** Arguments typed as JSON on a page's field: a skeleton from a JSON Schema, and parsing with a clear error. */
import { parseJsonObject } from '../../client-commands/tool-arguments.js';

/** `{"a": "", "n": 0}`: every property of the schema with its default, or an empty value of its type. */
export function argumentSkeleton(schema: Record<string, unknown> | undefined): string {
  const props = (schema?.properties ?? {}) as Record<string, { type?: unknown; default?: unknown }>;
  const out: Record<string, unknown> = {};
  for (const [name, p] of Object.entries(props)) out[name] = p.default === undefined ? emptyOf(p.type) : (p.default as unknown);
  return JSON.stringify(out);
}

function emptyOf(type: unknown): unknown {
  const t: unknown = Array.isArray(type) ? (type as unknown[])[0] : type;
  switch (t) {
    case 'number':
    case 'integer':
      return 0;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return '';
  }
}

/** The object the text holds, or an error message. */
export function parseArguments(text: string): { value: Record<string, unknown> } | { error: string } {
  const parsed = parseJsonObject(text.trim() || '{}');
  if ('notJson' in parsed) return { error: `Arguments are not JSON: ${parsed.notJson}` };
  if ('notObject' in parsed) return { error: 'Arguments must be a JSON object, like {"name": "value"}' };
  return parsed;
}
