/**
 * The `x-mcp-header` parameters of a backend's tools (2026-07-28 over
 * streamable HTTP): read from each tools list, and turned into the
 * `Mcp-Param-*` headers of a `tools/call` (../transports/mcp-request-headers.ts).
 * A tool whose declaration breaks the revision's rules is left out of the
 * list, as the revision requires of an HTTP client.
 */
import { paramHeaders, scanHeaderParams, type HeaderParam } from '../transports/mcp-request-headers.js';

export class ToolHeaderParams {
  /** Only the tools that declare any. */
  private byTool = new Map<string, readonly HeaderParam[]>();

  /** Takes a new tools list: returns the tools to keep and remembers what each mirrors. */
  load(tools: readonly unknown[], onInvalid: (tool: string, reason: string) => void): unknown[] {
    const byTool = new Map<string, readonly HeaderParam[]>();
    const kept: unknown[] = [];
    for (const tool of tools) {
      const { name, inputSchema } = tool as { name?: unknown; inputSchema?: unknown };
      const scan = scanHeaderParams(inputSchema);
      if (!scan.valid) {
        onInvalid(String(name), scan.reason);
        continue;
      }
      if (scan.params.length > 0 && typeof name === 'string') byTool.set(name, scan.params);
      kept.push(tool);
    }
    this.byTool = byTool;
    return kept;
  }

  /** The `Mcp-Param-*` headers of a `tools/call` with these params, or undefined when it has none. */
  headersFor(params: Record<string, unknown> | undefined): Record<string, string> | undefined {
    if (this.byTool.size === 0) return undefined;
    const declared = typeof params?.name === 'string' ? this.byTool.get(params.name) : undefined;
    if (!declared) return undefined;
    const headers = paramHeaders(declared, params?.arguments);
    return Object.keys(headers).length > 0 ? headers : undefined;
  }
}
