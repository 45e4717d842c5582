/**
 * What an operator reads before approving: the pinned definition against
 * the one served now. Text fields (description, title) side by side;
 * schemas, annotations and arguments as a unified diff of their indented
 * JSON with sorted keys. With no pin (a new definition), everything is new.
 */
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import type { DefinitionKind } from '../../schemas/pinning.js';
import { prettyJson, type Definition } from './definition.js';

export interface TextChange {
  before: string | null;
  after: string | null;
}

export interface DefinitionDiff {
  description: TextChange;
  /** Only when it differs. */
  title?: TextChange;
  /** Tools: unified diff of the input schema ('' when the same). */
  input_schema?: string;
  /** Tools: only when they differ. */
  output_schema?: string;
  annotations?: string;
  /** Prompts: unified diff of the arguments ('' when the same). */
  arguments?: string;
}

type JsonKey = 'input_schema' | 'output_schema' | 'annotations' | 'arguments';

const JSON_FIELDS: Record<DefinitionKind, Array<{ field: string; key: JsonKey; always: boolean }>> = {
  tool: [
    { field: 'inputSchema', key: 'input_schema', always: true },
    { field: 'outputSchema', key: 'output_schema', always: false },
    { field: 'annotations', key: 'annotations', always: false },
  ],
  prompt: [{ field: 'arguments', key: 'arguments', always: true }],
};

export function definitionDiff(kind: DefinitionKind, pinned: Definition | undefined, current: Definition): DefinitionDiff {
  const diff: DefinitionDiff = { description: textChange(pinned, current, 'description') };
  const title = textChange(pinned, current, 'title');
  if (title.before !== title.after) diff.title = title;
  for (const { field, key, always } of JSON_FIELDS[kind]) {
    const patch = unifiedDiff(field, pinned?.[field], current[field]);
    if (always || patch !== '') diff[key] = patch;
  }
  return diff;
}

function textChange(pinned: Definition | undefined, current: Definition, field: string): TextChange {
  const text = (d: Definition | undefined) => (typeof d?.[field] === 'string' ? (d[field] as string) : null);
  return { before: text(pinned), after: text(current) };
}

function unifiedDiff(field: string, before: unknown, after: unknown): string {
  const a = prettyJson(before);
  const b = prettyJson(after);
  if (a === b) return '';
  return createTwoFilesPatch(`pinned ${field}`, `current ${field}`, a, b, undefined, undefined, { headerOptions: FILE_HEADERS_ONLY });
}
