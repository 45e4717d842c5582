/**
 * W3C trace context in MCP's `_meta` (`traceparent`, `tracestate`,
 * `baggage`, as 2026-07-28 documents them): what a client sends continues
 * its trace in the gateway's span, and what the gateway forwards names its
 * own span as the parent of the backend's.
 */
import type { OtelSpanContext } from './otel-types.js';

/** The trace keys of a request's `_meta`, as strings. */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
  baggage?: string;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** The trace keys of a `_meta` object, or undefined when it has no traceparent (the common case: one property read). */
export function traceCarrierOf(meta: unknown): TraceCarrier | undefined {
  const m = meta as Record<string, unknown> | undefined;
  if (typeof m?.traceparent !== 'string') return undefined;
  const carrier: TraceCarrier = { traceparent: m.traceparent };
  if (typeof m.tracestate === 'string') carrier.tracestate = m.tracestate;
  if (typeof m.baggage === 'string') carrier.baggage = m.baggage;
  return carrier;
}

/** The remote parent a `traceparent` names (version 00), or undefined when it is malformed or all zeros. */
export function parseTraceparent(value: string): OtelSpanContext | undefined {
  const m = TRACEPARENT.exec(value.trim().toLowerCase());
  if (!m || m[1] === ZERO_TRACE || m[2] === ZERO_SPAN) return undefined;
  return { traceId: m[1]!, spanId: m[2]!, traceFlags: parseInt(m[3]!, 16), isRemote: true };
}

/** The carrier that names `span` as the parent, keeping the client's tracestate and baggage. */
export function carrierFor(span: OtelSpanContext, incoming: TraceCarrier | undefined): TraceCarrier {
  const flags = span.traceFlags.toString(16).padStart(2, '0');
  return { ...incoming, traceparent: `00-${span.traceId}-${span.spanId}-${flags}` };
}
