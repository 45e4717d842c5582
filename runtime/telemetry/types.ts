/**
 * Public types of the telemetry module (product spec 6.3).
 *
 * `OperationContext` / `Interceptor` describe the gateway's request-chain
 * interceptors. They live here until they move to a shared file; import them
 * from `runtime/telemetry/index.js`.
 */

export type McpMethod = 'call_tool' | 'read_resource' | 'get_prompt';

export interface OperationContext {
  method: McpMethod;
  /** Exposed tool/prompt name or resource URI. */
  capability: string;
  /** Owning backend, when resolved. May be filled in while `next()` runs. */
  backend?: string;
  originalName?: string;
  /** JSON-RPC id of the client request. */
  requestId?: string | number;
  sessionId: string;
}

export type Interceptor = <T>(ctx: OperationContext, next: () => Promise<T>) => Promise<T>;

export interface TelemetryLogger {
  info(...a: any[]): void;
  warn(...a: any[]): void;
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
