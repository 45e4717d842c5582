/**
 * Minimal structural types for the parts of the OpenTelemetry packages this
 * module uses.
 *
 * The OpenTelemetry packages are optionalDependencies, so the gateway must
 * compile (and run) without them. We therefore never reference their types
 * with `import('@opentelemetry/...')`; the loader checks the runtime shape of
 * each module instead and casts to these interfaces.
 */

export type OtelAttributeValue = string | number | boolean;
export type OtelAttributes = Record<string, OtelAttributeValue | undefined>;

/** A span's identity (W3C trace context). */
export interface OtelSpanContext {
  traceId: string;
  spanId: string;
  traceFlags: number;
  isRemote?: boolean;
}

/** An OpenTelemetry context, opaque here: only passed from trace.setSpanContext to startSpan. */
export type OtelContext = object;

export interface OtelSpan {
  spanContext(): OtelSpanContext;
  setAttribute(key: string, value: OtelAttributeValue): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  recordException(exception: unknown): void;
  end(): void;
}

export interface OtelTracer {
  startSpan(name: string, options?: { kind?: number; attributes?: OtelAttributes }, context?: OtelContext): OtelSpan;
}

export interface OtelCounter {
  add(value: number, attributes?: OtelAttributes): void;
}

export interface OtelHistogram {
  record(value: number, attributes?: OtelAttributes): void;
}

export interface OtelInstrumentOptions {
  description?: string;
  unit?: string;
  advice?: { explicitBucketBoundaries?: number[] };
}

export interface OtelMeter {
  createCounter(name: string, options?: OtelInstrumentOptions): OtelCounter;
  createHistogram(name: string, options?: OtelInstrumentOptions): OtelHistogram;
}

export interface OtelResource {
  merge(other: OtelResource | null): OtelResource;
  readonly attributes: Record<string, unknown>;
}

export interface OtelTracerProvider {
  getTracer(name: string, version?: string): OtelTracer;
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

export interface OtelMeterProvider {
  getMeter(name: string, version?: string): OtelMeter;
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * Opaque SDK objects we only pass from one SDK constructor to another: nothing
 * here reads them, so `unknown` is all the type they need (the modules are
 * loaded at run time and cast to these declarations in load-otel.ts).
 */
export type OtelResourceParam = unknown;
export type OtelSpanExporter = unknown;
export type OtelSpanProcessor = unknown;
export type OtelMetricExporter = unknown;
export type OtelMetricReader = unknown;

export interface OtlpHttpExporterConfig {
  /** Full signal URL, e.g. http://collector:4318/v1/traces. Omit to use the OTEL_* env vars. */
  url?: string;
}

export interface OtelApiModule {
  SpanStatusCode: { ERROR: number };
  SpanKind: { SERVER: number };
  ROOT_CONTEXT: OtelContext;
  trace: { setSpanContext(context: OtelContext, spanContext: OtelSpanContext): OtelContext };
}

export interface OtelTraceSdkModule {
  BasicTracerProvider: new (config: { resource?: OtelResourceParam; spanProcessors?: OtelSpanProcessor[] }) => OtelTracerProvider;
  BatchSpanProcessor: new (exporter: OtelSpanExporter) => OtelSpanProcessor;
}

export interface OtelMetricsSdkModule {
  MeterProvider: new (config: { resource?: OtelResourceParam; readers?: OtelMetricReader[] }) => OtelMeterProvider;
  PeriodicExportingMetricReader: new (options: {
    exporter: OtelMetricExporter;
    exportIntervalMillis?: number;
    exportTimeoutMillis?: number;
  }) => OtelMetricReader;
}

export interface OtelTraceExporterModule {
  OTLPTraceExporter: new (config?: OtlpHttpExporterConfig) => OtelSpanExporter;
}

export interface OtelMetricExporterModule {
  OTLPMetricExporter: new (config?: OtlpHttpExporterConfig) => OtelMetricExporter;
}

export interface OtelResourcesModule {
  resourceFromAttributes(attributes: Record<string, OtelAttributeValue>): OtelResource;
  defaultResource(): OtelResource;
  detectResources(config: { detectors: unknown[] }): OtelResource;
  envDetector: unknown;
}

/** Everything `loadOtel()` hands to `initTelemetry()`. */
export interface OtelModules {
  api: OtelApiModule;
  traceSdk: OtelTraceSdkModule;
  metricsSdk: OtelMetricsSdkModule;
  traceExporter: OtelTraceExporterModule;
  metricExporter: OtelMetricExporterModule;
  resources: OtelResourcesModule;
}
