/**
 * The audit step of the request chain: one record per MCP operation, written
 * when it ends, whatever the outcome (success, tool error, unknown name,
 * backend down, timeout).
 */
import type { Interceptor, OperationContext } from '../../routing/operation.js';
import type { AuditLog } from './audit-log.js';
import { buildAuditRecord } from './audit-record-builder.js';
import { toolErrorText } from '../failure.js';

export function createAuditInterceptor(audit: AuditLog): Interceptor {
  return async function auditStep<T>(ctx: OperationContext, next: () => Promise<T>): Promise<T> {
    const startedAt = performance.now();
    try {
      const result = await next();
      audit.record(buildAuditRecord({ ...base(ctx, startedAt), toolError: toolErrorText(result) }));
      return result;
    } catch (error) {
      audit.record(buildAuditRecord({ ...base(ctx, startedAt), error, denial: ctx.denial }));
      throw error;
    }
  };
}

function base(ctx: OperationContext, startedAt: number) {
  return {
    sessionId: ctx.sessionId,
    clientIp: ctx.clientIp ?? '',
    userId: ctx.userId,
    roles: ctx.roles,
    client: ctx.client,
    protocolVersion: ctx.protocolVersion,
    // Unknown names never resolve to a backend; the record still says what was asked for.
    backend: ctx.backend ?? '',
    method: ctx.method,
    capabilityName: ctx.capability,
    originalName: ctx.originalName ?? ctx.capability,
    actingAs: ctx.actingAs,
    startedAt,
    metadata: {
      ...ctx.metadata,
      transport: ctx.transport,
      jsonrpc_id: ctx.requestId ?? null,
      ...(ctx.plugins && { plugins: ctx.plugins }),
      ...(ctx.inputRounds && ctx.inputRounds.rounds > 0 && { input_rounds: { ...ctx.inputRounds, asked: [...ctx.inputRounds.asked] } }),
    },
  };
}
