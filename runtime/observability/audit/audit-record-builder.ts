/**
 * Builds an AuditRecord from what the request path knows when an operation
 * ends, so every caller fills the record the same way.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { AuditMethod, AuditMetadata, AuditRecord } from '../../../schemas/audit-record.js';
import type { AccessDecision } from '../../../schemas/access-config.js';
import { errorMessage, errorType } from '../failure.js';

export interface AuditRecordInput {
  sessionId: string;
  clientIp: string;
  userId?: string;
  roles?: readonly string[];
  client?: { name: string; version?: string };
  protocolVersion?: string;
  backend: string;
  method: AuditMethod;
  /** The name the gateway exposes. */
  capabilityName: string;
  /** The name at the backend. */
  originalName: string;
  /** Whom the backend call was made as, when the backend acts for each caller. */
  actingAs?: { userId: string; via: 'token_exchange' | 'user_oauth' };
  /** `performance.now()` when the operation started. */
  startedAt: number;
  /** Set when the operation threw. */
  error?: unknown;
  /** Set when a tool answered with `isError: true`: the text of its content. */
  toolError?: string;
  /** Set when the policies refused the operation (the caller was told the name is unknown). */
  denial?: AccessDecision;
  metadata: AuditMetadata;
}

/** error_type for a tool that answered normally but with `isError: true`. */
export const TOOL_ERROR_TYPE = 'ToolError';
const NO_ROLES: readonly string[] = [];

/** error_type for an operation the policies refused. */
export const ACCESS_DENIED_TYPE = 'AccessDenied';

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
      // Omitted rather than null/undefined: the fields exist only when the user is known.
      // The identity's own (immutable) roles array: nothing is copied per record.
      ...(input.userId === undefined ? {} : { user_id: input.userId, roles: (input.roles ?? NO_ROLES) as string[] }),
      ...(input.client === undefined
        ? {}
        : { client_name: input.client.name, ...(input.client.version === undefined ? {} : { client_version: input.client.version }) }),
      ...(input.protocolVersion === undefined ? {} : { protocol_version: input.protocolVersion }),
    },
    target: {
      backend: input.backend,
      method: input.method,
      capability_name: input.capabilityName,
      original_name: input.originalName,
      ...(input.actingAs === undefined ? {} : { acting_as: { user_id: input.actingAs.userId, via: input.actingAs.via } }),
    },
    outcome: {
      status: input.denial ? 'denied' : failure === null ? 'success' : 'error',
      // performance.now() is monotonic; the clamp only guards against a caller passing a
      // startedAt from another clock, so the record still satisfies the schema (>= 0).
      latency_ms: Math.max(0, latencyMs),
      error: failure?.message ?? null,
      error_type: failure?.type ?? null,
      ...(input.denial ? { policy_index: input.denial.policyIndex } : {}),
    },
    metadata: input.metadata,
  };
}

function describeFailure(input: AuditRecordInput): { message: string; type: string } | null {
  // The caller was told "unknown"; the record says what happened.
  if (input.denial) {
    const by = input.denial.policyIndex === null ? 'default_effect' : `policy ${input.denial.policyIndex}`;
    return { message: `denied by ${by} (${input.denial.effect})`, type: ACCESS_DENIED_TYPE };
  }
  // A thrown error wins over a tool error: it is the more fundamental failure.
  if (input.error !== undefined) {
    return { message: errorMessage(input.error), type: errorType(input.error) };
  }
  if (input.toolError !== undefined) return { message: input.toolError, type: TOOL_ERROR_TYPE };
  return null;
}
