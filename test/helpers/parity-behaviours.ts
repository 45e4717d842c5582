/**
 * Behaviours test/e2e/runtime/transports/transport-parity-http.test.ts and
 * test/e2e/runtime/transports/transport-parity-stdio.test.ts check the same way on every transport,
 * against the fixture server's tools (test/fixtures).
 */
import { expect } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { TestClient } from './parity-clients.js';

type ToolResult = { content: Array<{ type: string; text?: string }>; structuredContent?: unknown };

/** The text of a tool result's first content item. */
export const textOf = (result: unknown): string => (result as ToolResult).content[0]?.text ?? '';

/** tools/list shows the fixture's tools; tools/call returns text and structured content, unicode intact. */
export async function expectToolsListAndCall(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'add', 'burst', 'slow', 'sample', 'elicit']));
  const result = (await client.callTool({ name: 'echo', arguments: { text: 'héllo ✓' } })) as ToolResult;
  expect(result.content).toEqual([{ type: 'text', text: 'héllo ✓' }]);
  expect(result.structuredContent).toEqual({ text: 'héllo ✓' });
  expect(textOf(await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } }))).toBe('42');
}

/** A tool's JSON-RPC error reaches the caller as an McpError with its code and message; the connection goes on. */
export async function expectToolError(client: Client): Promise<void> {
  const call = client.callTool({ name: 'throw', arguments: { message: 'no luck', code: -32042 } });
  await expect(call).rejects.toBeInstanceOf(McpError);
  await expect(call).rejects.toMatchObject({ code: -32042, message: 'MCP error -32042: no luck' });
  expect(textOf(await client.callTool({ name: 'add', arguments: { a: 1, b: 1 } }))).toBe('2');
}

/** Sampling and elicitation requests the server sends while handling a call are answered by the client. */
export async function expectSamplingAndElicitation(t: TestClient): Promise<void> {
  const before = t.served.length;
  expect(textOf(await t.client.callTool({ name: 'sample', arguments: { prompt: 'hi' } }))).toBe('sampled: echo: hi');
  expect(textOf(await t.client.callTool({ name: 'elicit', arguments: { question: 'ok?' } }))).toBe('elicited: accept {"answer":"yes"}');
  expect(t.served.slice(before)).toEqual(['sampling:hi', 'elicitation:ok?']);
}

/**
 * Calls `burst` (`count` progress notifications back to back, then the result)
 * three times. With `complete` every notification must arrive, in order;
 * without, what arrives must be in order (a prefix: the rest was dropped).
 * Returns how many arrived in all.
 */
export async function expectProgressBurst(client: Client, count: number, complete: boolean): Promise<number> {
  let received = 0;
  for (let round = 0; round < 3; round++) {
    const progress: number[] = [];
    const result = await client.callTool({ name: 'burst', arguments: { count } }, undefined, { onprogress: (p) => progress.push(p.progress) });
    expect(textOf(result)).toBe(`burst ${count}`);
    expect(progress).toEqual(Array.from({ length: complete ? count : progress.length }, (_, i) => i + 1));
    received += progress.length;
  }
  return received;
}

/** The SDK Protocol reported each dropped progress notification (and nothing else). */
export function expectOnlyDroppedProgressErrors(errors: Error[], dropped: number): void {
  expect(errors).toHaveLength(dropped);
  for (const e of errors) expect(e.message).toMatch(/^Received a progress notification for an unknown token/);
}
