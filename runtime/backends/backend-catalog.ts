/** What one backend offers, as it reported it (before filters, renames and conflicts). */
import type { Prompt, Resource, ResourceTemplateType as ResourceTemplate, Tool } from '@modelcontextprotocol/client';

export interface BackendCatalog {
  tools: Tool[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
  /**
   * Per list, how long the backend said it may be kept (a 2026-07-28
   * backend's `ttlMs`, the shortest of its pages), when it said: a list the
   * gateway serves from it is kept no longer (route-table.ts).
   */
  listTtlMs?: Partial<Record<CatalogKind, number>>;
}

export type CatalogKind = 'tools' | 'resources' | 'resourceTemplates' | 'prompts';

export const emptyCatalog = (): BackendCatalog => ({ tools: [], resources: [], resourceTemplates: [], prompts: [] });

/** A list as loaded from the backend, page after page, with the shortest `ttlMs` its pages gave (none: it gave none). */
export type LoadedList = unknown[] & { ttlMs?: number };

/** The `ttlMs` a list keeps once one more page has come: the shorter of what it had and what the page says (a valid one). */
export function shorterListTtl(sofar: number | undefined, page: Record<string, unknown>): number | undefined {
  const said = page.ttlMs;
  if (typeof said !== 'number' || !Number.isFinite(said) || said < 0) return sofar;
  return sofar === undefined ? said : Math.min(sofar, said);
}

/**
 * Puts one list into a catalog (a copy made for this load: the catalog being
 * served is never changed in place). The lists come from the backend as
 * JSON: they are stored as the backend sent them, with its `ttlMs`.
 */
export function setCatalogList(catalog: BackendCatalog, kind: CatalogKind, list: unknown[], ttlMs?: number): void {
  (catalog as unknown as Record<CatalogKind, unknown[]>)[kind] = list;
  const { [kind]: _before, ...others } = catalog.listTtlMs ?? {};
  catalog.listTtlMs = ttlMs === undefined ? others : { ...others, [kind]: ttlMs };
}
