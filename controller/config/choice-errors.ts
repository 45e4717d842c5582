/**
 * A value that must be one of a list: TypeBox writes a union of literals as
 * `anyOf` of `const` branches, and ajv reports a wrong value once per branch
 * ("must be equal to constant", ten times for ten algorithms) and then once
 * for the union. Such a union (`anyOf` or `oneOf` whose every branch is a
 * `const` or an `enum`) is folded here into one error naming the allowed
 * values, of keyword `enum` like a plain enum's; unions of anything else are
 * left as ajv reports them.
 */
import type { ErrorObject } from 'ajv';

/** The errors with every union of choices folded into one `enum` error (needs ajv's `verbose`: the error carries its schema). */
export function foldChoiceUnions(errors: readonly ErrorObject[]): ErrorObject[] {
  const folded = new Map<ErrorObject, unknown[]>();
  for (const e of errors) {
    if (e.keyword !== 'anyOf' && e.keyword !== 'oneOf') continue;
    const values = choicesOf(e.schema);
    if (values) folded.set(e, values);
  }
  if (folded.size === 0) return [...errors];
  const insideFolded = (e: ErrorObject) =>
    [...folded.keys()].some((u) => u !== e && e.instancePath === u.instancePath && e.schemaPath.startsWith(`${u.schemaPath}/`));
  return errors
    .filter((e) => !insideFolded(e))
    .map((e) => {
      const allowedValues = folded.get(e);
      return allowedValues ? { ...e, keyword: 'enum', params: { allowedValues }, message: 'must be one of the allowed values' } : e;
    });
}

/** The values a union allows when each branch is a `const` or an `enum`; undefined otherwise. */
function choicesOf(schema: unknown): unknown[] | undefined {
  if (!Array.isArray(schema) || schema.length === 0) return undefined;
  const values: unknown[] = [];
  for (const branch of schema as unknown[]) {
    if (typeof branch !== 'object' || branch === null) return undefined;
    const b = branch as { const?: unknown; enum?: unknown };
    if ('const' in b) values.push(b.const);
    else if (Array.isArray(b.enum)) values.push(...(b.enum as unknown[]));
    else return undefined;
  }
  return values;
}

/** `must be one of: RS256, ES256 (got "HS256")`: strings as they are written in YAML, other values as JSON. */
export function choiceMessage(allowed: readonly unknown[], got: unknown): string {
  const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
  const gotText = got === undefined ? '' : ` (got ${JSON.stringify(got)})`;
  return `must be one of: ${allowed.map(show).join(', ')}${gotText}`;
}
