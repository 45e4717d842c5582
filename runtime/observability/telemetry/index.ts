export type { Interceptor, OperationContext, Telemetry } from './types.js';
export { initTelemetry } from './telemetry.js';
export { METRIC_REQUEST_DURATION, METRIC_REQUESTS } from './telemetry-interceptor.js';
export { loadOtel, type ModuleImporter } from './load-otel.js';
