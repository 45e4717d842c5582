/**
 * How safe a tool says it is, from its MCP annotations, for breaking near
 * ties in the search: a tool that only reads (`readOnlyHint`) before one that
 * writes without destroying (`destructiveHint: false`), before one that may
 * destroy. A tool that says neither is in the middle: ranking it below the
 * ones that do (the spec's default for it is "may destroy") would rank
 * servers by whether they annotate, not by what their tools do; find_tool
 * still shows it as "may be destructive". Annotations are the server's word,
 * not a guarantee: they order near-equal matches, they decide nothing.
 */
import type { Tool } from '@modelcontextprotocol/client';

/** For ranking: 1 read-only, 0.5 says nothing, 0.5 writes but destroys nothing, 0 may destroy. */
export function safetyOf(tool: Tool): number {
  const a = tool.annotations;
  if (a?.readOnlyHint === true) return 1;
  if (a?.readOnlyHint === undefined && a?.destructiveHint === undefined) return 0.5;
  if (a?.destructiveHint === false) return 0.5;
  return 0;
}

/** The annotations find_tool shows with a match, so the model can choose safely (what the spec's defaults make of them). */
export function safetyLabel(annotations: Tool['annotations']): 'read-only' | 'not destructive' | 'may be destructive' {
  const a = annotations;
  return a?.readOnlyHint === true ? 'read-only' : a?.destructiveHint === false ? 'not destructive' : 'may be destructive';
}
