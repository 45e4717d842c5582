/**
 * The telemetry interceptor: one span plus two metric recordings per MCP
 * request (product spec 6.3).
 *
 * Span  `mcp.<method>.<capability>` with attributes mcp.method, mcp.capability,
 *       mcp.request_id, mcp.backend (and mcp.session_id, and enduser.id when
 *       the caller is authenticated).
 * Counter   METRIC_REQUESTS          labels tool_name, backend, success
 * Histogram METRIC_REQUEST_DURATION  labels tool_name, backend (seconds)
 *
 * A result `{ isError: true }` (MCP tool-level error) and a thrown error both
 * count as success=false and set the span status to ERROR; a thrown error is
 * also recorded as an exception event and rethrown unchanged.
 */
import type { OtelContext, OtelCounter, OtelHistogram, OtelInstrumentOptions, OtelMeter, OtelSpanContext, OtelTracer } from './otel-types.js';
import type { Interceptor, OperationContext } from './types.js';
import { errorMessage, errorType, isToolError } from '../failure.js';
import { carrierFor, parseTraceparent } from './trace-context.js';

export const METRIC_REQUESTS = 'mcp.gateway.requests';
export const METRIC_REQUEST_DURATION = 'mcp.gateway.request.duration';

/** Value of the metric label `backend` while the owning backend is unknown. */
export const UNKNOWN_BACKEND = 'unknown';

const REQUESTS_OPTIONS: OtelInstrumentOptions = {
  description: 'MCP requests handled by the gateway',
  unit: '{request}',
};

const DURATION_OPTIONS: OtelInstrumentOptions = {
  description: 'Duration of MCP requests handled by the gateway',
  unit: 's',
  advice: {
    explicitBucketBoundaries: [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60, 120, 300],
  },
};

export interface TelemetryInstruments {
  tracer: OtelTracer;
  requests: OtelCounter;
  duration: OtelHistogram;
  /** SpanStatusCode.ERROR of @opentelemetry/api. */
  statusError: number;
  /** SpanKind used for the request span (SpanKind.SERVER). */
  spanKind: number;
  /** The context that makes a client's span the parent of ours (trace.setSpanContext on the root context). */
  remoteParent: (span: OtelSpanContext) => OtelContext;
}

export function createInstruments(
  meter: OtelMeter,
  tracer: OtelTracer,
  statusError: number,
  spanKind: number,
  remoteParent: (span: OtelSpanContext) => OtelContext,
): TelemetryInstruments {
  return {
    tracer,
    requests: meter.createCounter(METRIC_REQUESTS, REQUESTS_OPTIONS),
    duration: meter.createHistogram(METRIC_REQUEST_DURATION, DURATION_OPTIONS),
    statusError,
    spanKind,
    remoteParent,
  };
}

/**
 * What recordException gets. The SDK uses an exception's `code` as
 * `exception.type` when there is one, and gateway errors carry a string code
 * (`backend_error`) while McpError carries a number: pass the class name
 * instead, the same value as the span's `error.type` and the audit
 * record's `error_type`. The message and stack are kept.
 */
function exceptionOf(err: unknown, message: string): { name: string; message: string; stack?: string } | string {
  if (typeof err !== 'object' || err === null || !('message' in err)) return message;
  const stack = (err as { stack?: unknown }).stack;
  return { name: errorType(err), message, ...(typeof stack === 'string' ? { stack } : {}) };
}

export function createTelemetryInterceptor(instruments: TelemetryInstruments): Interceptor {
  const { tracer, requests, duration, statusError, spanKind, remoteParent } = instruments;

  return async function telemetryInterceptor<T>(ctx: OperationContext, next: () => Promise<T>): Promise<T> {
    const startBackend = ctx.backend;
    // A client that sent a traceparent continues its trace here; the backend is told our span is its parent.
    const parent = ctx.trace?.traceparent === undefined ? undefined : parseTraceparent(ctx.trace.traceparent);
    const span = tracer.startSpan(
      `mcp.${ctx.method}.${ctx.capability}`,
      {
        kind: spanKind,
        attributes: {
          'mcp.method': ctx.method,
          'mcp.capability': ctx.capability,
          'mcp.request_id': ctx.requestId === undefined ? undefined : String(ctx.requestId),
          'mcp.backend': startBackend,
          'mcp.session_id': ctx.sessionId,
          // OpenTelemetry's attribute for the authenticated user (absent for anonymous callers).
          'enduser.id': ctx.userId,
        },
      },
      parent && remoteParent(parent),
    );
    ctx.outgoingTrace = carrierFor(span.spanContext(), ctx.trace);
    const start = performance.now();
    let success = false;
    try {
      const result = await next();
      if (isToolError(result)) {
        span.setAttribute('error.type', 'tool_error');
        span.setStatus({ code: statusError, message: 'tool returned isError: true' });
      } else {
        success = true;
      }
      return result;
    } catch (err) {
      const message = errorMessage(err);
      span.recordException(exceptionOf(err, message));
      span.setAttribute('error.type', errorType(err));
      span.setStatus({ code: statusError, message });
      throw err;
    } finally {
      const seconds = (performance.now() - start) / 1000;
      // The backend may only be resolved while next() runs.
      const backend = ctx.backend;
      if (backend !== undefined && backend !== startBackend) span.setAttribute('mcp.backend', backend);
      const toolName = ctx.capability;
      const backendLabel = backend ?? UNKNOWN_BACKEND;
      // Two separate objects: the metrics SDK may keep a reference to them.
      duration.record(seconds, { tool_name: toolName, backend: backendLabel });
      requests.add(1, { tool_name: toolName, backend: backendLabel, success });
      span.end();
    }
  };
}
