/**
 * One MCP request as the method handlers see it, whichever protocol revision
 * carried it: its params, who it is for (and how to reach that client back),
 * and how it is forwarded (its cancellation signal, where progress goes).
 * The legacy session server and the stateless (2026-07-28) server each make
 * one per request and look the handler up in a method table.
 */
import type { CallerContext, ForwardOptions, JsonObject } from '../../../runtime/routing/caller.js';

export interface McpCall {
  readonly params: JsonObject;
  readonly caller: CallerContext;
  readonly forward: ForwardOptions;
}

export type MethodHandler = (call: McpCall) => Promise<JsonObject>;

/** Method name → handler. A method absent from the table is answered -32601 by whoever looks it up. */
export type MethodTable = ReadonlyMap<string, MethodHandler>;
