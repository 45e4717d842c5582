/**
 * Which MCP revision a backend connection tries, from the backend's config
 * (`protocol`, default `auto`), as the SDK client's version negotiation.
 *
 * - `auto`: probe with `server/discover`, fall back to `initialize` on what
 *   is no modern answer. Over stdio a probe the server leaves unanswered
 *   means a 2025 server that ignores unknown requests before `initialize`:
 *   it falls back after STDIO_PROBE_MS rather than the whole connect
 *   timeout. Over HTTP silence is an outage, so the probe waits the connect
 *   timeout and fails.
 * - `2025-11-25`: `initialize` only (the server may answer an earlier 2025 revision).
 * - `2026-07-28`: the modern revision or a failed connect.
 *
 * HTTP+SSE (`type: sse`) is a 2025 transport: it always initializes.
 */
import type { VersionNegotiationOptions } from '@modelcontextprotocol/client';
import type { BackendProtocol, BackendSpec } from '../../schemas/config.js';

/** How long a stdio backend may leave the `server/discover` probe unanswered before it is taken for a 2025 server. */
export const STDIO_PROBE_MS = 3000;

export const MODERN_REVISION = '2026-07-28';

export function protocolOf(spec: BackendSpec): BackendProtocol {
  return spec.type === 'sse' ? '2025-11-25' : (spec.protocol ?? 'auto');
}

export function negotiationFor(spec: BackendSpec, connectTimeoutMs: number): VersionNegotiationOptions {
  const protocol = protocolOf(spec);
  if (protocol === '2025-11-25') return { mode: 'legacy' };
  if (protocol === MODERN_REVISION) return { mode: { pin: MODERN_REVISION }, probe: { timeoutMs: connectTimeoutMs } };
  return { mode: 'auto', probe: { timeoutMs: spec.type === 'stdio' ? Math.min(STDIO_PROBE_MS, connectTimeoutMs) : connectTimeoutMs } };
}
