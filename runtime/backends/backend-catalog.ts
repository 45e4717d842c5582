/** What one backend offers, as it reported it (before filters, renames and conflicts). */
import type { Prompt, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';

export interface BackendCatalog {
  tools: Tool[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
}

export type CatalogKind = keyof BackendCatalog;

export const emptyCatalog = (): BackendCatalog => ({ tools: [], resources: [], resourceTemplates: [], prompts: [] });
