/** What one backend offers, as it reported it (before filters, renames and conflicts). */
import type { Prompt, Resource, ResourceTemplateType as ResourceTemplate, Tool } from '@modelcontextprotocol/client';

export interface BackendCatalog {
  tools: Tool[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
}

export type CatalogKind = keyof BackendCatalog;

export const emptyCatalog = (): BackendCatalog => ({ tools: [], resources: [], resourceTemplates: [], prompts: [] });

/** Puts one list into a catalog. The lists come from the backend as JSON: they are stored as the backend sent them. */
export function setCatalogList(catalog: BackendCatalog, kind: CatalogKind, list: unknown[]): void {
  (catalog as Record<CatalogKind, unknown[]>)[kind] = list;
}
