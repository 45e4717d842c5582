/**
 * A result "schema" for the SDK's request() that accepts anything. The
 * gateway relays results as their producer wrote them (full fidelity), and
 * skipping zod keeps the proxy path cheap.
 *
 * The SDK has no hook for "do not validate": it reads a result schema only
 * through its zod-compat layer, which calls `safeParse` on anything that is
 * not a zod 4 schema. This object answers that call, so it is typed as the
 * SDK's schema type here, in this one adapter.
 */
import type { AnySchema } from '@modelcontextprotocol/sdk/server/zod-compat.js';

export const PASSTHROUGH = { safeParse: (data: unknown) => ({ success: true as const, data }) } as unknown as AnySchema;
