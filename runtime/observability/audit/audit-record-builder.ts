/**
 * Builds an AuditRecord from what the request path knows when an operation
 * ends, so every caller fills the record the same way.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { AuditMethod, AuditMetadata, AuditRecord } from '../../../schemas/audit-record.js';
import { errorMessage, errorType } from '../failure.js';

export interface AuditRecordInput {
  sessionId: string;
  clientIp: string;
  userId?: string;
  backend: string;
  method: AuditMethod;
  /** The name the gateway exposes. */
  capabilityName: string;
  /** The name at the backend. */
  originalName: string;
  /** `performance.now()` when the operation started. */
  startedAt: number;
  /** Set when the operation threw. */
  error?: unknown;
  /** Set when a tool answered with `isError: true`: the text of its content. */
  toolError?: string;
  metadata: AuditMetadata;
}

/** error_type for a tool that answered normally but with `isError: true`. */
export const TOOL_ERROR_TYPE = 'ToolError';

export function buildAuditRecord(input: AuditRecordInput): AuditRecord {
  const latencyMs = performance.now() - input.startedAt;
  const failure = describeFailure(input);
  return {
    timestamp: new Date().toISOString(),
    event_type: 'mcp_operation',
    event_id: randomUUID(),
    source: {
      session_id: input.sessionId,
      client_ip: input.clientIp,
      // Omitted rather than null/undefined: the field exists only when the user is known.
      ...(input.userId === undefined ? {} : { user_id: input.userId }),
    },
    target: {
      backend: input.backend,
      method: input.method,
      capability_name: input.capabilityName,
      original_name: input.originalName,
    },
    outcome: {
      status: failure === null ? 'success' : 'error',
      // performance.now() is monotonic; the clamp only guards against a caller passing a
      // startedAt from another clock, so the record still satisfies the schema (>= 0).
      latency_ms: Math.max(0, latencyMs),
      error: failure?.message ?? null,
      error_type: failure?.type ?? null,
    },
    metadata: input.metadata,
  };
}

function describeFailure(input: AuditRecordInput): { message: string; type: string } | null {
  // A thrown error wins over a tool error: it is the more fundamental failure.
  if (input.error !== undefined) {
    return { message: errorMessage(input.error), type: errorType(input.error) };
  }
  if (input.toolError !== undefined) return { message: input.toolError, type: TOOL_ERROR_TYPE };
  return null;
}
