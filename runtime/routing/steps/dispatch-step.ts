/**
 * Step 5 of the call pipeline: the owner's connection as it serves now (its
 * identity changes when the backend reconnects). The call counts as in
 * flight until it settles (graceful shutdown waits for it); the audit
 * record learns whom a backend that acts for each caller was called as; the
 * backend is told the gateway's span is the parent of its own; the client's
 * progress token means nothing to the backend (the SDK issues its own when
 * progress is relayed), so it is removed.
 */
import { BackendUnavailableError } from '../../../schemas/errors.js';
import type { ServingTarget } from '../../backends/serving-backends.js';
import type { TraceCarrier } from '../../observability/telemetry/trace-context.js';
import type { JsonObject } from '../caller.js';
import type { CallStep } from '../call-pipeline.js';
import type { InFlightCalls } from '../in-flight-calls.js';

export function dispatchStep(target: (backend: string) => ServingTarget | undefined, inFlight: InFlightCalls): CallStep {
  return async (call, next) => {
    const { ctx, caller, opts } = call;
    const backend = ctx.backend!;
    const owner = target(backend);
    if (!owner) throw new BackendUnavailableError(backend, 'not connected');
    call.owner = owner;
    const via = owner.actsForCallers;
    if (via && caller.userId !== undefined) ctx.actingAs = { userId: caller.userId, via };
    opts.onBackend?.(backend);
    const { method, params } = call.outgoing!;
    const sent = stripProgressToken(withTrace(params, ctx.outgoingTrace));
    const options = { signal: opts.signal, timeoutMs: owner.requestTimeoutMs, onprogress: opts.onprogress, caller };
    call.request = (round) => owner.request(method, round ? { ...sent, ...round } : sent, options);
    const release = inFlight.add(backend, caller);
    try {
      return await next();
    } finally {
      if (caller.inputRounds) ctx.inputRounds = caller.inputRounds;
      release();
    }
  };
}

function withTrace(params: JsonObject, trace: TraceCarrier | undefined): JsonObject {
  if (trace === undefined) return params;
  return { ...params, _meta: { ...(params._meta as JsonObject | undefined), ...trace } };
}

function stripProgressToken(params: JsonObject): JsonObject {
  const meta = params._meta as JsonObject | undefined;
  if (!meta || !('progressToken' in meta)) return params;
  const { progressToken: _drop, ...rest } = meta;
  return { ...params, _meta: rest };
}
