/**
 * Public types of the telemetry module (product spec 6.3).
 *
 * The request-chain types (`OperationContext`, `Interceptor`) are the
 * gateway's own, from `runtime/operation.ts`: the telemetry interceptor is
 * installed in the same chain as the audit step, so it must not declare a
 * look-alike of them. They are re-exported here for the module's users.
 */
import type { Interceptor, OperationContext } from '../../routing/operation.js';

export type { Interceptor, OperationContext };

export interface TelemetryLogger {
  info(...a: unknown[]): void;
  warn(...a: unknown[]): void;
}

export interface Telemetry {
  /** Null when telemetry is disabled: install no interceptor at all. */
  interceptor: Interceptor | null;
  /** Exports everything buffered so far (spans and metrics). No-op when disabled. */
  flush(): Promise<void>;
  /** Flushes and stops the exporters. Idempotent; no-op when disabled. */
  shutdown(): Promise<void>;
  enabled: boolean;
}
