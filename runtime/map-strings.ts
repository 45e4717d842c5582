/**
 * The one walker over configuration values: a copy of a parsed YAML/JSON
 * value with a function applied to every string inside, told the string's key
 * path. Used for `${VAR}` expansion, `secret:` resolution and anything else
 * that rewrites config strings.
 *
 * Keys are copied as own data properties (Object.fromEntries), so a key such
 * as `__proto__` stays a key instead of replacing the copy's prototype.
 */
export type StringMapper = (value: string, path: readonly string[]) => string;

export function mapStrings(value: unknown, fn: StringMapper, path: readonly string[] = []): unknown {
  if (typeof value === 'string') return fn(value, path);
  if (Array.isArray(value)) return value.map((item: unknown, i) => mapStrings(item, fn, [...path, String(i)]));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, fn, [...path, key])]));
  }
  return value;
}
