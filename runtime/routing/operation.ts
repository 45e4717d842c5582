/**
 * An MCP operation (tool call, resource read, prompt fetch, completion) as seen by the
 * steps that wrap every forwarded request: audit and telemetry. Interceptors
 * compose around the actual forwarding, so a failure anywhere (unknown name,
 * backend down, timeout) passes through them too.
 */
import type { AuditMethod, PluginAction } from '../../schemas/audit-record.js';
import type { AccessDecision } from '../../schemas/access-config.js';
import type { TraceCarrier } from '../observability/telemetry/trace-context.js';
import type { InputRoundsRecord } from '../rounds/input-rounds-record.js';
export type OperationMethod = AuditMethod;

export type CallerTransport = 'streamable-http' | 'sse' | 'management';

export interface OperationContext {
  method: OperationMethod;
  /** Exposed name or URI. */
  capability: string;
  /** Owning backend, once routing has resolved it. */
  backend?: string;
  /** Name or URI at the backend, once resolved. */
  originalName?: string;
  requestId?: string | number;
  sessionId: string;
  transport: CallerTransport;
  clientIp?: string;
  userId?: string;
  roles?: readonly string[];
  /** The client program, as it names itself. */
  client?: { name: string; version?: string };
  /** The protocol revision the client spoke. */
  protocolVersion?: string;
  /** Set when the policies refused the operation: it then fails exactly as an unknown name does. */
  denial?: AccessDecision;
  /** Set when the owning backend acts for each caller: whom the backend call was made as, and how (the audit record's `target.acting_as`). */
  actingAs?: { userId: string; via: 'token_exchange' | 'user_oauth' };
  /** Extra facts for the audit record (a workflow step names its workflow and step). */
  metadata?: Record<string, unknown>;
  /** Set when the call asked its client for input (elicitation, sampling, roots): the audit record's `metadata.input_rounds`. */
  inputRounds?: InputRoundsRecord;
  /** The client's trace context (`_meta.traceparent`, …), when it sent one. */
  trace?: TraceCarrier;
  /** Set by telemetry: the trace context the backend is sent (the gateway's span as its parent). */
  outgoingTrace?: TraceCarrier;
  /** What the plugin chain did to the operation (blocks, redactions, cache hits, retries), for the audit record. */
  plugins?: PluginAction[];
}

export type Interceptor = <T>(ctx: OperationContext, next: () => Promise<T>) => Promise<T>;

export type OperationRunner = <T>(ctx: OperationContext, last: () => Promise<T>) => Promise<T>;

/** Composes interceptors (first = outermost) around a final step. */
export function compose(interceptors: readonly Interceptor[]): OperationRunner {
  if (interceptors.length === 0) return (_ctx, last) => last();
  return function run<T>(ctx: OperationContext, last: () => Promise<T>): Promise<T> {
    const step = (i: number): Promise<T> => (i === interceptors.length ? last() : interceptors[i](ctx, () => step(i + 1)));
    return step(0);
  };
}
