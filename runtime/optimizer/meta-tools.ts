/**
 * The two tools a client sees in place of the catalog: `find_tool` searches
 * it, `call_tool` calls a tool found there. Definitions and argument checks
 * only; tool-optimizer.ts runs them.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { BadRequestError } from '../../schemas/errors.js';
import { OPTIMIZER_MAX_LIMIT } from '../../schemas/config.js';
import type { JsonObject } from '../routing/caller.js';
import type { ToolMatch } from './tool-index.js';
import { safetyLabel } from './safety.js';

export const FIND_TOOL = 'find_tool';
export const CALL_TOOL = 'call_tool';

export function findToolDefinition(defaultLimit: number): Tool {
  return {
    name: FIND_TOOL,
    title: 'Find a tool',
    description:
      'Search the tools this gateway can call, by what you want to do (e.g. "create an issue in a GitHub repository"). ' +
      'Returns the best matches, best first, each with its name, input schema and annotations (whether it only reads or may destroy); ' +
      'call one with call_tool.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What the tool should do, in words.' },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: OPTIMIZER_MAX_LIMIT,
          description: `How many tools to return (default ${defaultLimit}, at most ${OPTIMIZER_MAX_LIMIT}).`,
        },
      },
      required: ['query'],
    },
    outputSchema: {
      type: 'object',
      properties: {
        tools: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              description: { type: 'string' },
              inputSchema: { type: 'object' },
              backend: { type: 'string' },
              score: { type: 'number' },
              annotations: { type: 'object', description: 'The tool’s own annotations (readOnlyHint, destructiveHint, …), when it has any.' },
            },
            required: ['name', 'description', 'inputSchema', 'backend', 'score'],
          },
        },
      },
      required: ['tools'],
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  };
}

export const CALL_TOOL_DEFINITION: Tool = {
  name: CALL_TOOL,
  title: 'Call a tool',
  description: 'Call a tool found with find_tool, by its exact name, with arguments that follow its input schema. ' + 'The result is the tool’s own result.',
  inputSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'The tool’s name, as find_tool returned it.' },
      arguments: { type: 'object', description: 'The tool’s arguments.' },
    },
    required: ['name'],
  },
};

/** find_tool's arguments, checked: a query and a limit within bounds. */
export function findToolArguments(args: unknown, defaultLimit: number): { query: string; limit: number } {
  const a = objectArguments(args, FIND_TOOL);
  if (typeof a.query !== 'string') throw new BadRequestError('Invalid params: find_tool needs a string `query`');
  if (a.limit === undefined) return { query: a.query, limit: defaultLimit };
  if (typeof a.limit !== 'number' || !Number.isInteger(a.limit) || a.limit < 1) {
    throw new BadRequestError(`Invalid params: find_tool's \`limit\` must be a positive integer (got ${JSON.stringify(a.limit)})`);
  }
  return { query: a.query, limit: Math.min(a.limit, OPTIMIZER_MAX_LIMIT) };
}

/** call_tool's arguments, checked: the real tool's name and its arguments. */
export function callToolArguments(args: unknown): { name: string; arguments?: JsonObject } {
  const a = objectArguments(args, CALL_TOOL);
  if (typeof a.name !== 'string') throw new BadRequestError('Invalid params: call_tool needs a string `name`');
  const inner = a.arguments;
  if (inner !== undefined && (typeof inner !== 'object' || inner === null || Array.isArray(inner))) {
    throw new BadRequestError('Invalid params: call_tool’s `arguments` must be an object');
  }
  return { name: a.name, ...(inner !== undefined ? { arguments: inner as JsonObject } : {}) };
}

/** find_tool's result: the matches as structured content, and the same as text for clients that read only text. */
export function findToolResult(matches: ToolMatch[]): JsonObject {
  const text =
    matches.length === 0
      ? 'No tool matches. Try other words.'
      : matches
          .map(
            (m, i) =>
              `${i + 1}. ${m.name} (backend ${m.backend}, score ${m.score}; ${safetyLabel(m.annotations)})\n` +
              `${m.description}\ninput schema: ${JSON.stringify(m.inputSchema)}` +
              (m.annotations ? `\nannotations: ${JSON.stringify(m.annotations)}` : ''),
          )
          .join('\n\n');
  return { content: [{ type: 'text', text }], structuredContent: { tools: matches } };
}

function objectArguments(args: unknown, tool: string): JsonObject {
  if (args === undefined) return {};
  if (typeof args !== 'object' || args === null || Array.isArray(args)) throw new BadRequestError(`Invalid params: ${tool}'s arguments must be an object`);
  return args as JsonObject;
}
