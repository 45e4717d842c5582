/**
 * `{{inputs.<path>}}` and `{{steps.<id>.text}}` in a step's arguments.
 *
 * Placeholders live in string values (never in keys), at any depth:
 * - a string that is exactly one placeholder is replaced by the value itself,
 *   keeping its JSON type (`"{{inputs.count}}"` → `3`); when an input is
 *   absent, the property (or array element) is left out, so the tool's own
 *   default applies;
 * - a placeholder inside a longer string is replaced by text: strings as they
 *   are, other values as JSON, an absent input as the empty string.
 * Any other `{{...}}` is left alone (it may mean something to the tool).
 */
import type { JsonObject } from '../routing/caller.js';

/** A reference the gateway resolves: anything starting with `inputs.` or `steps.` inside `{{ }}`. */
const REFERENCE = /\{\{\s*((?:inputs|steps)\b[^{}]*?)\s*\}\}/g;
const INPUT_PATH = /^inputs((?:\.[A-Za-z0-9_-]+)+)$/;
const STEP_TEXT = /^steps\.([A-Za-z0-9][A-Za-z0-9_-]*)\.text$/;

export type Reference = { kind: 'input'; path: string[] } | { kind: 'step'; id: string };

/** Parses the inside of one `{{ }}`; throws with a readable message when it is not a supported reference. */
export function parseReference(expr: string): Reference {
  const input = INPUT_PATH.exec(expr);
  if (input) return { kind: 'input', path: input[1].slice(1).split('.') };
  const step = STEP_TEXT.exec(expr);
  if (step) return { kind: 'step', id: step[1] };
  throw new Error(`unsupported reference {{${expr}}}: use {{inputs.<name>}} or {{steps.<id>.text}}`);
}

/** Every reference in a value (for validation at load); throws on an unsupported one. */
export function referencesIn(value: unknown): Reference[] {
  const found: Reference[] = [];
  walkStrings(value, (s) => {
    for (const m of s.matchAll(REFERENCE)) found.push(parseReference(m[1]));
  });
  return found;
}

export interface TemplateScope {
  inputs: JsonObject;
  steps: Record<string, string>;
}

const ABSENT = Symbol('absent');

export function substitute(args: JsonObject, scope: TemplateScope): JsonObject {
  return substituteValue(args, scope) as JsonObject;
}

function substituteValue(value: unknown, scope: TemplateScope): unknown {
  if (typeof value === 'string') return substituteString(value, scope);
  if (Array.isArray(value)) return value.map((v) => substituteValue(v, scope)).filter((v) => v !== ABSENT);
  if (value !== null && typeof value === 'object') {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) {
      const next = substituteValue(v, scope);
      if (next !== ABSENT) out[k] = next;
    }
    return out;
  }
  return value;
}

function substituteString(s: string, scope: TemplateScope): unknown {
  if (!s.includes('{{')) return s;
  const whole = /^\{\{\s*((?:inputs|steps)\b[^{}]*?)\s*\}\}$/.exec(s);
  if (whole) {
    const v = resolve(parseReference(whole[1]), scope);
    return v === undefined ? ABSENT : v;
  }
  return s.replace(REFERENCE, (_m, expr: string) => {
    const v = resolve(parseReference(expr), scope);
    if (v === undefined) return '';
    return typeof v === 'string' ? v : JSON.stringify(v);
  });
}

function resolve(ref: Reference, scope: TemplateScope): unknown {
  if (ref.kind === 'step') return scope.steps[ref.id];
  let v: unknown = scope.inputs;
  for (const key of ref.path) {
    if (v === null || typeof v !== 'object' || Array.isArray(v) || !Object.hasOwn(v, key)) return undefined;
    v = (v as JsonObject)[key];
  }
  return v;
}

function walkStrings(value: unknown, visit: (s: string) => void): void {
  if (typeof value === 'string') visit(value);
  else if (Array.isArray(value)) value.forEach((v) => walkStrings(v, visit));
  else if (value !== null && typeof value === 'object') Object.values(value).forEach((v) => walkStrings(v, visit));
}
