/**
 * A result "schema" for the SDK's request() that accepts anything. The
 * gateway relays results as their producer wrote them (full fidelity), and
 * skipping zod keeps the proxy path cheap. The SDK only calls `safeParse`.
 */
export const PASSTHROUGH = { safeParse: (data: unknown) => ({ success: true as const, data }) } as never;
