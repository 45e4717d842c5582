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
import type { MethodHandler } from './mcp-call.js';

export interface SharedMethodDeps {
  router: Router;
  view: CallerView;
  optimizer: ToolOptimizer;
}

export function sharedMethods({ router, view, optimizer }: SharedMethodDeps): Map<string, MethodHandler> {
  // Lists are served with their JSON computed once per route table and role set (see cachedListResult).
  return new Map<string, MethodHandler>([
    ['tools/list', async ({ caller }) => cachedListResult('tools', view.tools(caller))],
    ['prompts/list', async ({ caller }) => cachedListResult('prompts', view.lists(caller).prompts)],
    ['resources/list', async ({ caller }) => cachedListResult('resources', view.lists(caller).resources)],
    ['resources/templates/list', async ({ caller }) => cachedListResult('resourceTemplates', view.lists(caller).resourceTemplates)],
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
