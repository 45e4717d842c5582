/**
 * The methods both protocol revisions serve the same way: the lists (what
 * this caller may see, per ../../../runtime/access/caller-view.ts) and the
 * operations the router forwards to a backend (tool calls, with the
 * optimizer's meta-tools; prompt gets; resource reads; completions). The
 * session-only methods of 2025-11-25 and the stateless-only ones of
 * 2026-07-28 are added by their servers.
 */
import type { Router } from '../../../runtime/routing/router.js';
import type { CallerView } from '../../../runtime/access/caller-view.js';
import type { ToolOptimizer } from '../../../runtime/optimizer/tool-optimizer.js';
import { cachedListResult } from '../../../runtime/transports/json-rpc.js';
import { listAfterFirstConnects, type FirstConnects } from '../../../runtime/routing/first-connects.js';
import type { CallerContext, JsonObject } from '../../../runtime/routing/caller.js';
import type { CatalogKind } from '../../../runtime/backends/backend-catalog.js';
import { withBackendsTtl } from '../stateless/cache-hints.js';
import type { MethodHandler } from './mcp-call.js';

export interface SharedMethodDeps {
  router: Router;
  view: CallerView;
  optimizer: ToolOptimizer;
  /** Backends still in their first connect: a list waits for them (bounded), and says so if served before they end. */
  firstConnects: FirstConnects;
}

export function sharedMethods({ router, view, optimizer, firstConnects }: SharedMethodDeps): Map<string, MethodHandler> {
  // Lists are served with their JSON computed once per route table and role set (see cachedListResult),
  // and with how long their backends let them be kept (for a 2026-07-28 client's ttlMs; never serialised).
  const list =
    (method: string, kind: CatalogKind, of: (caller: CallerContext) => readonly unknown[]): MethodHandler =>
    ({ caller }) =>
      listAfterFirstConnects<JsonObject>(firstConnects, method, async () => withBackendsTtl(cachedListResult(kind, of(caller)), view.listTtlMs(kind)));
  return new Map<string, MethodHandler>([
    ['tools/list', list('tools/list', 'tools', (caller) => view.tools(caller))],
    ['prompts/list', list('prompts/list', 'prompts', (caller) => view.lists(caller).prompts)],
    ['resources/list', list('resources/list', 'resources', (caller) => view.lists(caller).resources)],
    ['resources/templates/list', list('resources/templates/list', 'resourceTemplates', (caller) => view.lists(caller).resourceTemplates)],
    [
      'tools/call',
      ({ params, caller, forward }) =>
        optimizer.handles(params.name) ? optimizer.call(caller, params, forward, view.toolVisibility(caller)) : router.callTool(caller, params, forward),
    ],
    ['prompts/get', ({ params, caller, forward }) => router.getPrompt(caller, params, forward)],
    ['resources/read', ({ params, caller, forward }) => router.readResource(caller, params, forward)],
    ['completion/complete', ({ params, caller, forward }) => router.complete(caller, params, forward)],
  ]);
}
