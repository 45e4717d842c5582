/**
 * Telemetry setup and teardown (product spec 6.3).
 *
 * `initTelemetry()` returns `{ interceptor: null, enabled: false }` when no
 * OTLP endpoint is configured, when OTEL_SDK_DISABLED=true, or when the
 * optional OpenTelemetry packages cannot be loaded: the caller then installs
 * no interceptor, so the request path does no extra work at all.
 *
 * Otherwise it builds a tracer provider (BatchSpanProcessor -> OTLP/HTTP JSON
 * exporter, <endpoint>/v1/traces) and a meter provider
 * (PeriodicExportingMetricReader -> OTLP/HTTP JSON exporter, <endpoint>/v1/metrics).
 * Neither is registered as the global OpenTelemetry provider and no
 * auto-instrumentation is enabled.
 */
import { loadOtel, type ModuleImporter } from './load-otel.js';
import type { OtelModules, OtelResource, OtlpHttpExporterConfig } from './otel-types.js';
import { createInstruments, createTelemetryInterceptor } from './telemetry-interceptor.js';
import type { Telemetry, TelemetryLogger } from './types.js';

export const DEFAULT_SERVICE_NAME = 'mcp-gateway';
export const DEFAULT_METRIC_EXPORT_INTERVAL_MS = 10_000;
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 5_000;
const INSTRUMENTATION_SCOPE = 'mcp-gateway';
const DEFAULT_METRIC_EXPORT_TIMEOUT_MS = 30_000;

export interface TelemetryOptions {
  /** Default: OTEL_SERVICE_NAME, else 'mcp-gateway'. */
  serviceName?: string;
  /**
   * OTLP/HTTP base URL (signals go to /v1/traces and /v1/metrics).
   * Default: OTEL_EXPORTER_OTLP_ENDPOINT. Telemetry is disabled when neither is set.
   */
  endpoint?: string;
  /** Default: OTEL_METRIC_EXPORT_INTERVAL, else 10 000 ms. */
  metricExportIntervalMs?: number;
  logger?: TelemetryLogger;
  /** Upper bound for shutdown()/flush() when the collector is unreachable. Default 5 000 ms. */
  shutdownTimeoutMs?: number;
  /** Test seam: replaces the dynamic `import()` used to load the OpenTelemetry packages. */
  importer?: ModuleImporter;
}

const noop = async (): Promise<void> => {};

export const DISABLED_TELEMETRY: Telemetry = Object.freeze({
  interceptor: null,
  enabled: false,
  flush: noop,
  shutdown: noop,
});

function envString(name: string): string | undefined {
  const value = process.env[name]?.trim();
  return value ? value : undefined;
}

function positiveNumber(value: unknown): number | undefined {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : undefined;
}

function signalUrl(endpoint: string, path: 'v1/traces' | 'v1/metrics'): string {
  return `${endpoint.replace(/\/+$/, '')}/${path}`;
}

function buildResource(otel: OtelModules, serviceName: string, logger?: TelemetryLogger): OtelResource {
  const { resources } = otel;
  let resource = resources.defaultResource();
  try {
    // OTEL_RESOURCE_ATTRIBUTES (and OTEL_SERVICE_NAME).
    resource = resource.merge(resources.detectResources({ detectors: [resources.envDetector] }));
  } catch (err) {
    logger?.warn(`telemetry: ignoring OTEL_RESOURCE_ATTRIBUTES (${(err as Error)?.message ?? err})`);
  }
  return resource.merge(resources.resourceFromAttributes({ 'service.name': serviceName }));
}

/** Settles within `ms` whatever `op` does; failures are logged, never thrown. */
async function bounded(op: Promise<unknown>, ms: number, what: string, logger?: TelemetryLogger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      logger?.warn(`telemetry: ${what} did not finish within ${ms} ms`);
      resolve();
    }, ms);
    timer.unref();
  });
  const done = op.then(
    () => undefined,
    (err: unknown) => logger?.warn(`telemetry: ${what} failed (${(err as Error)?.message ?? err})`),
  );
  try {
    await Promise.race([done, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function initTelemetry(opts: TelemetryOptions = {}): Promise<Telemetry> {
  const logger = opts.logger;
  if (envString('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') {
    logger?.info('telemetry disabled: OTEL_SDK_DISABLED=true');
    return DISABLED_TELEMETRY;
  }

  const explicitEndpoint = opts.endpoint?.trim() || undefined;
  const endpoint = explicitEndpoint ?? envString('OTEL_EXPORTER_OTLP_ENDPOINT');
  if (!endpoint) return DISABLED_TELEMETRY;
  try {
    new URL(endpoint);
  } catch {
    logger?.warn(`telemetry disabled: invalid OTLP endpoint '${endpoint}'`);
    return DISABLED_TELEMETRY;
  }

  const otel = await loadOtel({ importer: opts.importer, logger });
  if (!otel) return DISABLED_TELEMETRY;

  const serviceName = opts.serviceName?.trim() || envString('OTEL_SERVICE_NAME') || DEFAULT_SERVICE_NAME;
  const intervalMs =
    positiveNumber(opts.metricExportIntervalMs) ?? positiveNumber(envString('OTEL_METRIC_EXPORT_INTERVAL')) ?? DEFAULT_METRIC_EXPORT_INTERVAL_MS;
  const exportTimeoutMs = Math.min(positiveNumber(envString('OTEL_METRIC_EXPORT_TIMEOUT')) ?? DEFAULT_METRIC_EXPORT_TIMEOUT_MS, intervalMs);
  const shutdownTimeoutMs = positiveNumber(opts.shutdownTimeoutMs) ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;

  // With the endpoint from the environment the exporters read the OTEL_EXPORTER_OTLP_*
  // variables themselves (so per-signal endpoint overrides keep working); an explicit
  // endpoint wins over them.
  const traceConfig: OtlpHttpExporterConfig = explicitEndpoint ? { url: signalUrl(explicitEndpoint, 'v1/traces') } : {};
  const metricConfig: OtlpHttpExporterConfig = explicitEndpoint ? { url: signalUrl(explicitEndpoint, 'v1/metrics') } : {};

  try {
    const resource = buildResource(otel, serviceName, logger);
    const tracerProvider = new otel.traceSdk.BasicTracerProvider({
      resource,
      spanProcessors: [new otel.traceSdk.BatchSpanProcessor(new otel.traceExporter.OTLPTraceExporter(traceConfig))],
    });
    const meterProvider = new otel.metricsSdk.MeterProvider({
      resource,
      readers: [
        new otel.metricsSdk.PeriodicExportingMetricReader({
          exporter: new otel.metricExporter.OTLPMetricExporter(metricConfig),
          exportIntervalMillis: intervalMs,
          exportTimeoutMillis: exportTimeoutMs,
        }),
      ],
    });

    const instruments = createInstruments(
      meterProvider.getMeter(INSTRUMENTATION_SCOPE),
      tracerProvider.getTracer(INSTRUMENTATION_SCOPE),
      otel.api.SpanStatusCode.ERROR,
      otel.api.SpanKind.SERVER,
      (span) => otel.api.trace.setSpanContext(otel.api.ROOT_CONTEXT, span),
    );

    let shutdownPromise: Promise<void> | undefined;
    const telemetry: Telemetry = {
      interceptor: createTelemetryInterceptor(instruments),
      enabled: true,
      async flush() {
        if (shutdownPromise) return;
        await Promise.all([
          bounded(tracerProvider.forceFlush(), shutdownTimeoutMs, 'span flush', logger),
          bounded(meterProvider.forceFlush(), shutdownTimeoutMs, 'metric flush', logger),
        ]);
      },
      shutdown() {
        shutdownPromise ??= Promise.all([
          bounded(tracerProvider.shutdown(), shutdownTimeoutMs, 'tracer shutdown', logger),
          bounded(meterProvider.shutdown(), shutdownTimeoutMs, 'meter shutdown', logger),
        ]).then(() => undefined);
        return shutdownPromise;
      },
    };
    logger?.info(`telemetry enabled: OTLP/HTTP to ${explicitEndpoint ?? endpoint} as service '${serviceName}', ` + `metrics every ${intervalMs} ms`);
    return telemetry;
  } catch (err) {
    logger?.warn(`telemetry disabled: OpenTelemetry setup failed (${(err as Error)?.message ?? err})`);
    return DISABLED_TELEMETRY;
  }
}
