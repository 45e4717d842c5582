/**
 * A result "schema" for an SDK request() that accepts anything. The gateway
 * relays results as their producer wrote them (full fidelity), and skipping
 * a zod parse keeps the proxy path cheap.
 *
 * Neither SDK line has a hook for "do not validate", but both read a
 * caller's result schema through an interface this object answers: the v2
 * line (backend connections, and the front door's requests to its clients)
 * through Standard Schema (`~standard.validate`); 1.x (what the tests' 2025
 * peers still use) through its zod-compat layer, which calls `safeParse` on
 * anything that is not a zod 4 schema. On a 2026-07-28 backend connection the
 * v2 client's wire codec still checks the envelope of the spec's own results
 * first; nothing turns that off.
 */
import type { StandardSchemaV1 } from '@modelcontextprotocol/client';

export const PASSTHROUGH: StandardSchemaV1<unknown, Record<string, unknown>> = {
  '~standard': { version: 1, vendor: 'mcp-gateway', validate: (value: unknown) => ({ value: value as Record<string, unknown> }) },
};

/** The front door's name for the same object (its requests to clients pass results through too). */
export const PASSTHROUGH_RESULT = PASSTHROUGH;
