/**
 * What of a tool or prompt is pinned: the fields a client's model reads
 * (for a tool its name, title, description, input and output schemas and
 * annotations; for a prompt its name, description and arguments), as the
 * backend itself reported them (before renames), hashed as canonical JSON
 * (RFC 8785: sorted keys, one spelling per number) so the same definition
 * always has the same hash.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { Prompt, Tool } from '@modelcontextprotocol/client';
import type { DefinitionKind } from '../../schemas/pinning.js';

export type Definition = Record<string, unknown>;

const PINNED_FIELDS: Record<DefinitionKind, readonly string[]> = {
  tool: ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations'],
  prompt: ['name', 'description', 'arguments'],
};

/** The pinned fields of a tool or prompt as the backend listed it; fields it left out stay out. */
export function definitionOf(kind: DefinitionKind, item: Tool | Prompt): Definition {
  const source = item as Record<string, unknown>;
  return Object.fromEntries(PINNED_FIELDS[kind].filter((field) => source[field] !== undefined).map((field) => [field, source[field]]));
}

/** SHA-256 (hex) of the canonical JSON of a definition. */
export function definitionHash(definition: Definition): string {
  return createHash('sha256')
    .update(canonicalize(definition) ?? '')
    .digest('hex');
}

/** Indented JSON with sorted keys: two versions of a schema compare line by line, whatever order the backend wrote them in. */
export function prettyJson(value: unknown): string {
  if (value === undefined) return '';
  return `${JSON.stringify(JSON.parse(canonicalize(value) ?? 'null'), null, 2)}\n`;
}
