/**
 * A result "schema" for an SDK request() that accepts anything. The gateway
 * relays results as their producer wrote them (full fidelity), and skipping
 * a zod parse keeps the proxy path cheap.
 *
 * Neither SDK line has a hook for "do not validate", but both read a caller's
 * result schema through an interface this object answers:
 * - the v2 client (backend connections) through Standard Schema
 *   (`~standard.validate`). On a 2026-07-28 connection its wire codec still
 *   checks the envelope of the spec's own results first; nothing turns that off.
 * - the 1.x server (the front door, until it moves to v2) through its
 *   zod-compat layer, which calls `safeParse` on anything that is not a zod 4
 *   schema. That half goes when the front door does.
 */
import type { StandardSchemaV1 } from '@modelcontextprotocol/client';
import type { AnySchema } from '@modelcontextprotocol/sdk/server/zod-compat.js';

type Passthrough = StandardSchemaV1<unknown, Record<string, unknown>> & AnySchema;

export const PASSTHROUGH = {
  '~standard': { version: 1, vendor: 'mcp-gateway', validate: (value: unknown) => ({ value: value as Record<string, unknown> }) },
  safeParse: (data: unknown) => ({ success: true as const, data }),
} as unknown as Passthrough;
