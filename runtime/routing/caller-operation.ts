/** An operation for a caller: who asks, from where, in which revision (what the audit and telemetry read of it). */
import type { CallerContext } from './caller.js';
import type { OperationContext, OperationMethod } from './operation.js';

export function operationFor(caller: CallerContext, method: OperationMethod, capability: string): OperationContext {
  return {
    method,
    capability,
    sessionId: caller.sessionId,
    transport: caller.transport,
    clientIp: caller.clientIp,
    userId: caller.userId,
    roles: caller.roles,
    client: caller.client,
    protocolVersion: caller.protocolVersion,
    requestId: caller.requestId,
    metadata: caller.metadata,
  };
}
