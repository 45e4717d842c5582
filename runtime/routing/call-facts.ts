/**
 * What a policy's `when` may read of one call (schemas/access-config.ts
 * `CallFacts`), gathered where the router asks the policies: the arguments
 * the client sent (before any plugin touched them: the policies judge the
 * request, not what a guardrail made of it), the tool's annotations from its
 * served definition, the request (method, revision, client program) and the
 * caller's token claims. The same facts reach the policies whichever
 * revision, transport or entry point (the optimizer's `call_tool`, a skill's
 * workflow) the call came through, so none of them is a way around a
 * condition.
 */
import type { CallFacts, ToolHints } from '../../schemas/access-config.js';
import type { CallerContext, JsonObject } from './caller.js';
import type { Route, ToolEntry } from './route-table.js';

export function callFacts(caller: CallerContext, wireMethod: string, args: JsonObject | undefined, route: Route | undefined): CallFacts {
  const annotations = (route as Partial<ToolEntry> | undefined)?.tool?.annotations as ToolHints | undefined;
  return {
    ...(args !== undefined ? { arguments: args } : {}),
    ...(annotations !== undefined ? { annotations } : {}),
    ...listFacts(caller, wireMethod),
  };
}

/** What a list's filter may know of its caller too: no call is made yet, so no arguments and no tool. */
export function listFacts(caller: Pick<CallerContext, 'protocolVersion' | 'client' | 'claims'>, wireMethod?: string): Pick<CallFacts, 'claims' | 'request'> {
  const { client, protocolVersion, claims } = caller;
  return {
    request: {
      ...(wireMethod !== undefined ? { method: wireMethod } : {}),
      ...(protocolVersion !== undefined ? { revision: protocolVersion } : {}),
      ...(client !== undefined ? { clientName: client.name, ...(client.version !== undefined ? { clientVersion: client.version } : {}) } : {}),
    },
    ...(claims !== undefined ? { claims } : {}),
  };
}
