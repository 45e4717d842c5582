/**
 * The calls that both the management API and MCP offer: call a tool, read a
 * resource, render a prompt. gateway-client makes them through the management
 * API (as the management caller, with the management token), or, given an MCP
 * client token, over `/mcp` as that client (its authorization policies apply
 * and the audit names it). The answers have one shape either way; only the
 * management API says which backend served.
 */
import type { ManagementClient } from './management-client.js';
import type * as T from './api-types.js';
import { withMcpClient, type McpTarget } from './mcp-session.js';

type Backend = { backend?: string };
// `call_id` names the audit record of a management call; a call over /mcp has none to give.
export type ToolOutcome = Omit<T.ToolCall, 'backend' | 'call_id' | 'structuredContent'> & Backend & { structuredContent?: unknown; call_id?: string };
export type ResourceOutcome = Omit<T.ResourceRead, 'backend'> & Backend;
export type PromptOutcome = Omit<T.PromptGet, 'backend'> & Backend;

export interface CapabilityCalls {
  /** Whose calls these are: the management caller, or an MCP client. */
  readonly via: 'management' | 'mcp';
  /** The tool's input schema, to type `--arg` values; undefined for an unknown tool. */
  toolInputSchema(name: string): Promise<Record<string, unknown> | undefined>;
  callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolOutcome>;
  readResource(uri: string, signal?: AbortSignal): Promise<ResourceOutcome>;
  getPrompt(name: string, args: Record<string, string>, signal?: AbortSignal): Promise<PromptOutcome>;
}

export function managementCalls(client: ManagementClient): CapabilityCalls {
  return {
    via: 'management',
    async toolInputSchema(name) {
      const { tools } = await client.capabilities({ type: 'tools', search: name });
      return tools.find((t) => t.name === name)?.input_schema as Record<string, unknown> | undefined;
    },
    callTool: (name, args, signal) => client.callTool(name, args, signal),
    readResource: (uri, signal) => client.readResource(uri, signal),
    getPrompt: (name, args, signal) => client.getPrompt(name, args, signal),
  };
}

export function mcpCalls(target: McpTarget): CapabilityCalls {
  return {
    via: 'mcp',
    toolInputSchema: (name) =>
      withMcpClient(target, async (mcp) => {
        for (let cursor: string | undefined, page = 0; page < 100; page++) {
          const listed = await mcp.listTools(cursor === undefined ? {} : { cursor });
          const tool = listed.tools.find((t) => t.name === name);
          if (tool) return tool.inputSchema as Record<string, unknown>;
          cursor = listed.nextCursor;
          if (cursor === undefined) return undefined;
        }
        return undefined;
      }),
    callTool: (name, args, signal) =>
      withMcpClient(target, async (mcp) => {
        const r = await mcp.callTool({ name, arguments: args }, { signal });
        return {
          tool: name,
          content: (Array.isArray(r.content) ? r.content : []) as ToolOutcome['content'],
          isError: r.isError === true,
          ...(r.structuredContent !== undefined && { structuredContent: r.structuredContent }),
        };
      }),
    readResource: (uri, signal) =>
      withMcpClient(target, async (mcp) => {
        const r = await mcp.readResource({ uri }, { signal });
        return {
          uri,
          contents: r.contents.map((c) => ({
            uri: c.uri,
            mimeType: c.mimeType ?? '',
            ...('text' in c && typeof c.text === 'string' ? { text: c.text } : {}),
            ...('blob' in c && typeof c.blob === 'string' ? { blob: c.blob } : {}),
          })),
        };
      }),
    getPrompt: (name, args, signal) =>
      withMcpClient(target, async (mcp) => {
        const r = await mcp.getPrompt({ name, arguments: args }, { signal });
        return { prompt: name, ...(r.description !== undefined && { description: r.description }), messages: r.messages as PromptOutcome['messages'] };
      }),
  };
}
