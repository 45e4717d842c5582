/**
 * Text in a tool or prompt definition that is there for the model rather
 * than the person who reads it: invisible characters (tag characters that
 * spell hidden text, zero-width characters, bidirectional controls) and
 * phrases of prompt injection that a tool description has no business
 * holding. Every string of the definition is read, keys of its schemas
 * included; each finding names where it is and what it is.
 */
import { INVISIBLE_CLASSES, codePointLabel, decodeTagCharacters, revealInvisible } from '../../schemas/invisible-text.js';
import type { Finding } from '../../schemas/pinning.js';
import type { Definition } from './definition.js';

/**
 * Hidden-instruction markers, as published tool-poisoning examples use them.
 * Kept short on purpose: each is a phrase no honest description needs.
 */
const MARKERS: readonly RegExp[] = [
  /<\s*\/?\s*important\s*>/i,
  /\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+)?(?:the\s+)?(?:previous|prior|above|earlier)\s+(?:instructions|prompts?|rules)\b/i,
  /\b(?:do\s+not|don't|never)\s+(?:tell|inform|notify|mention\s+(?:this|it)\s+to)\s+the\s+user\b/i,
  /\bwithout\s+(?:telling|informing|notifying)\s+the\s+user\b/i,
];

/** How much of a decoded hidden text a finding quotes. */
const DETAIL_MAX = 200;

export function findSuspicious(definition: Definition): Finding[] {
  const findings: Finding[] = [];
  for (const [field, text] of strings(definition, '')) {
    for (const { kind, label, pattern } of INVISIBLE_CLASSES) {
      const runs = [...text.matchAll(pattern)].map((m) => m[0]);
      if (runs.length === 0) continue;
      const chars = runs.flatMap((run) => [...run]);
      const detail =
        kind === 'tag_characters'
          ? `${label}: ${chars.length}, spelling ${JSON.stringify(clip(runs.map(decodeTagCharacters).join(' … ')))}`
          : `${label}: ${chars.length} (${[...new Set(chars.map(codePointLabel))].join(', ')})`;
      findings.push({ kind, field, detail });
    }
    for (const marker of MARKERS) {
      const found = marker.exec(text);
      if (found) findings.push({ kind: 'instruction_marker', field, detail: `hidden-instruction marker ${JSON.stringify(found[0])}` });
    }
  }
  return findings;
}

/** Every string in a JSON value, object keys included, with its path (`inputSchema.properties.path.description`). */
function* strings(value: unknown, path: string): Generator<[string, string]> {
  if (typeof value === 'string') yield [path || '(value)', value];
  else if (Array.isArray(value)) for (const [i, item] of value.entries()) yield* strings(item, `${path}[${i}]`);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      // The path names the key visibly: a key that hides characters must not carry them into a log line.
      const at = path ? `${path}.${revealInvisible(key)}` : revealInvisible(key);
      yield [`${at} (key)`, key];
      yield* strings(item, at);
    }
  }
}

function clip(text: string): string {
  return text.length > DETAIL_MAX ? `${text.slice(0, DETAIL_MAX)}…` : text;
}
