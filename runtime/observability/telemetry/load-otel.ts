/**
 * Dynamic loading of the optional OpenTelemetry packages.
 *
 * The packages are optionalDependencies: a missing package is a normal case
 * and makes `loadOtel()` resolve to null (telemetry disabled), never throw.
 * Specifiers are passed through a variable so TypeScript does not try to
 * resolve them at compile time (the build must work without the packages).
 */
import type {
  OtelApiModule,
  OtelMetricExporterModule,
  OtelMetricsSdkModule,
  OtelModules,
  OtelResourcesModule,
  OtelTraceExporterModule,
  OtelTraceSdkModule,
} from './otel-types.js';
import type { TelemetryLogger } from './types.js';

/** Loads a module by specifier; injectable so tests can simulate absent packages. */
export type ModuleImporter = (specifier: string) => Promise<unknown>;

export const defaultImporter: ModuleImporter = (specifier) => import(specifier);

export const OTEL_PACKAGES = {
  api: '@opentelemetry/api',
  traceSdk: '@opentelemetry/sdk-trace-base',
  metricsSdk: '@opentelemetry/sdk-metrics',
  traceExporter: '@opentelemetry/exporter-trace-otlp-http',
  metricExporter: '@opentelemetry/exporter-metrics-otlp-http',
  /** Not a declared dependency; a dependency of every SDK package. */
  resources: '@opentelemetry/resources',
  /** Declared; re-exports `resources` (heavier to load, used as a fallback). */
  sdkNode: '@opentelemetry/sdk-node',
} as const;

export interface LoadOtelOptions {
  importer?: ModuleImporter;
  logger?: TelemetryLogger;
}

class IncompatibleOtelError extends Error {}

export function isModuleNotFound(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}

/** Named export of an ESM namespace, or of `default` for CJS interop. */
function pick<T>(ns: unknown, name: string, kind: 'function' | 'object', pkg: string): T {
  const mod = ns as Record<string, unknown> | null | undefined;
  const value = mod?.[name] ?? (mod?.default as Record<string, unknown> | undefined)?.[name];
  if (typeof value !== kind || value === null) {
    throw new IncompatibleOtelError(`${pkg}: export '${name}' missing or not a ${kind}`);
  }
  // The shape was checked as far as it can be at run time; the declared types in otel-types.ts say the rest.
  return value as T;
}

async function loadResources(importer: ModuleImporter): Promise<OtelResourcesModule> {
  let ns: unknown;
  let pkg: string = OTEL_PACKAGES.resources;
  try {
    ns = await importer(pkg);
  } catch (err) {
    if (!isModuleNotFound(err)) throw err;
    pkg = OTEL_PACKAGES.sdkNode;
    ns = pick(await importer(pkg), 'resources', 'object', pkg);
  }
  return {
    resourceFromAttributes: pick(ns, 'resourceFromAttributes', 'function', pkg),
    defaultResource: pick(ns, 'defaultResource', 'function', pkg),
    detectResources: pick(ns, 'detectResources', 'function', pkg),
    envDetector: pick(ns, 'envDetector', 'object', pkg),
  };
}

/**
 * Imports the OpenTelemetry packages. Resolves to null when any of them is not
 * installed (logged at info) or does not have the expected exports (logged at
 * warn).
 */
export async function loadOtel(options: LoadOtelOptions = {}): Promise<OtelModules | null> {
  const importer = options.importer ?? defaultImporter;
  const P = OTEL_PACKAGES;
  try {
    const [apiNs, traceNs, metricsNs, traceExpNs, metricExpNs, resources] = await Promise.all([
      importer(P.api),
      importer(P.traceSdk),
      importer(P.metricsSdk),
      importer(P.traceExporter),
      importer(P.metricExporter),
      loadResources(importer),
    ]);
    const api: OtelApiModule = {
      SpanStatusCode: pick(apiNs, 'SpanStatusCode', 'object', P.api),
      SpanKind: pick(apiNs, 'SpanKind', 'object', P.api),
      ROOT_CONTEXT: pick(apiNs, 'ROOT_CONTEXT', 'object', P.api),
      trace: pick(apiNs, 'trace', 'object', P.api),
    };
    const traceSdk: OtelTraceSdkModule = {
      BasicTracerProvider: pick(traceNs, 'BasicTracerProvider', 'function', P.traceSdk),
      BatchSpanProcessor: pick(traceNs, 'BatchSpanProcessor', 'function', P.traceSdk),
    };
    const metricsSdk: OtelMetricsSdkModule = {
      MeterProvider: pick(metricsNs, 'MeterProvider', 'function', P.metricsSdk),
      PeriodicExportingMetricReader: pick(metricsNs, 'PeriodicExportingMetricReader', 'function', P.metricsSdk),
    };
    const traceExporter: OtelTraceExporterModule = {
      OTLPTraceExporter: pick(traceExpNs, 'OTLPTraceExporter', 'function', P.traceExporter),
    };
    const metricExporter: OtelMetricExporterModule = {
      OTLPMetricExporter: pick(metricExpNs, 'OTLPMetricExporter', 'function', P.metricExporter),
    };
    return { api, traceSdk, metricsSdk, traceExporter, metricExporter, resources };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (isModuleNotFound(err)) {
      options.logger?.info(`telemetry disabled: OpenTelemetry packages not installed (${message})`);
    } else {
      options.logger?.warn(`telemetry disabled: could not load OpenTelemetry packages (${message})`);
    }
    return null;
  }
}
