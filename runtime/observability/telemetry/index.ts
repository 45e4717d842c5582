export type { Interceptor, OperationContext, Telemetry, TelemetryLogger } from './types.js';
export {
  DEFAULT_METRIC_EXPORT_INTERVAL_MS,
  DEFAULT_SERVICE_NAME,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  DISABLED_TELEMETRY,
  initTelemetry,
  type TelemetryOptions,
} from './telemetry.js';
export {
  METRIC_REQUEST_DURATION,
  METRIC_REQUESTS,
  UNKNOWN_BACKEND,
  createInstruments,
  createTelemetryInterceptor,
  type TelemetryInstruments,
} from './telemetry-interceptor.js';
export { loadOtel, isModuleNotFound, type LoadOtelOptions, type ModuleImporter } from './load-otel.js';
