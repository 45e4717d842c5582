/**
 * The log levels of MCP's `notifications/message` (RFC 5424 severities),
 * least severe first: what a client may ask for (`logging/setLevel` in
 * 2025-11-25, `io.modelcontextprotocol/logLevel` per request in 2026-07-28)
 * and what decides whether a backend's log message reaches it.
 */
export const MCP_LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
export type McpLogLevel = (typeof MCP_LOG_LEVELS)[number];

const SEVERITY = new Map<string, number>(MCP_LOG_LEVELS.map((level, i) => [level, i]));

export const isMcpLogLevel = (value: unknown): value is McpLogLevel => typeof value === 'string' && SEVERITY.has(value);

/** Whether a message at `level` reaches a client that asked for `threshold` and above (an unknown level always does). */
export function admitsLogLevel(threshold: string, level: string): boolean {
  return (SEVERITY.get(level) ?? Number.MAX_SAFE_INTEGER) >= (SEVERITY.get(threshold) ?? 0);
}
