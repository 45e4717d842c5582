/**
 * A result "schema" for the SDK's request() that accepts anything. The
 * gateway relays results as their producer wrote them (full fidelity), and
 * skipping validation keeps the proxy path cheap.
 *
 * SDK 1.x reads a result schema only through its zod-compat layer, which
 * calls `safeParse` on anything that is not a zod 4 schema (PASSTHROUGH).
 * The v2 line takes any Standard Schema (`~standard.validate`), which
 * PASSTHROUGH_RESULT is: the value comes back as it went in.
 */
import type { AnySchema } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { StandardSchemaV1 } from '@modelcontextprotocol/server';

export const PASSTHROUGH = { safeParse: (data: unknown) => ({ success: true as const, data }) } as unknown as AnySchema;

export const PASSTHROUGH_RESULT: StandardSchemaV1<unknown, Record<string, unknown>> = {
  '~standard': { version: 1, vendor: 'mcp-gateway', validate: (value) => ({ value: value as Record<string, unknown> }) },
};
