/**
 * The facts a policy's `when` expression reads, in one place: their shape
 * (the load-time check knows every field and its type from it) and the
 * values one decision binds. An absent annotation takes its MCP default
 * (a tool that says nothing is not read-only, may be destructive, is not
 * idempotent and reaches an open world), so `tool.annotations.readOnlyHint`
 * is always a bool.
 */
import type { CallFacts, RequestFacts, ResourceKind, ToolHints } from '../../schemas/access-config.js';

/** A fact's type: a CEL type name, or the fields of a known object. */
export type FactType = string | { readonly [field: string]: FactType };

export const FACT_TYPES = {
  caller: { id: 'string', roles: 'list', claims: 'map' },
  tool: {
    name: 'string',
    backend: 'string',
    kind: 'string',
    annotations: { title: 'string', readOnlyHint: 'bool', destructiveHint: 'bool', idempotentHint: 'bool', openWorldHint: 'bool' },
  },
  arguments: 'map',
  request: { method: 'string', revision: 'string', client_name: 'string', client_version: 'string' },
} as const satisfies Record<string, FactType>;

export type FactName = keyof typeof FACT_TYPES;
export const FACT_NAMES = Object.keys(FACT_TYPES) as FactName[];

/** The MCP method of a call on each kind, when the request facts do not say. */
const METHOD_OF: Partial<Record<ResourceKind, string>> = { tool: 'tools/call', prompt: 'prompts/get', resource: 'resources/read' };

const NO_CLAIMS: Readonly<Record<string, unknown>> = Object.freeze({});

/** Who, what and how, as the policies see one decision. */
export interface DecisionSubject {
  userId?: string;
  roles: readonly string[];
  /** A capability's kind; `server` or `group` when POST /authorization/check asks about one of those. */
  kind: ResourceKind;
  name: string;
  backend: string;
  facts?: CallFacts;
}

export type FactBindings = Record<FactName, unknown>;

export function factBindings(s: DecisionSubject): FactBindings {
  const facts = s.facts;
  return {
    caller: { id: s.userId ?? '', roles: s.roles, claims: facts?.claims ?? NO_CLAIMS },
    tool: { name: s.name, backend: s.backend, kind: s.kind, annotations: hints(facts?.annotations) },
    arguments: facts?.arguments ?? NO_CLAIMS,
    request: request(s.kind, facts?.request),
  };
}

function hints(a: ToolHints | undefined) {
  return {
    title: a?.title ?? '',
    readOnlyHint: a?.readOnlyHint ?? false,
    destructiveHint: a?.destructiveHint ?? true,
    idempotentHint: a?.idempotentHint ?? false,
    openWorldHint: a?.openWorldHint ?? true,
  };
}

function request(kind: ResourceKind, r: RequestFacts | undefined) {
  return { method: r?.method ?? METHOD_OF[kind] ?? '', revision: r?.revision ?? '', client_name: r?.clientName ?? '', client_version: r?.clientVersion ?? '' };
}
