import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  initTelemetry,
  loadOtel,
  METRIC_REQUEST_DURATION,
  METRIC_REQUESTS,
  type Interceptor,
  type ModuleImporter,
  type OperationContext,
  type Telemetry,
} from '../../../../runtime/observability/telemetry/index.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedMetric } from '../../../helpers/otlp-receiver.js';

const OTEL_ENV = [
  'OTEL_SDK_DISABLED',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
  'OTEL_SERVICE_NAME',
  'OTEL_RESOURCE_ATTRIBUTES',
  'OTEL_METRIC_EXPORT_INTERVAL',
];
const savedEnv: Record<string, string | undefined> = {};

beforeAll(() => {
  for (const k of OTEL_ENV) {
    savedEnv[k] = process.env[k];
    delete process.env[k];
  }
});
afterAll(() => {
  for (const k of OTEL_ENV) {
    if (savedEnv[k] === undefined) delete process.env[k];
    else process.env[k] = savedEnv[k];
  }
});

function op(method: OperationContext['method'], capability: string, extra: Partial<OperationContext> = {}): OperationContext {
  return { method, capability, backend: 'b1', requestId: 1, sessionId: 'sess-1', transport: 'streamable-http', ...extra };
}

const logger = () => ({ info: vi.fn(), warn: vi.fn() });

const OTLP_SPAN_KIND_SERVER = 2;
const OTLP_STATUS_ERROR = 2;

describe('telemetry exporting to an OTLP/HTTP receiver', () => {
  let receiver: OtlpReceiver;
  let telemetry: Telemetry;
  let interceptor: Interceptor;
  const okResult = { content: [{ type: 'text', text: 'hi' }] };
  const toolError = { isError: true, content: [{ type: 'text', text: 'bad input' }] };
  const thrown = new Error('kaput');
  const outcomes: Record<string, unknown> = {};

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    telemetry = await initTelemetry({
      endpoint: receiver.url,
      serviceName: 'gw-test',
      metricExportIntervalMs: 100,
    });
    expect(telemetry.interceptor).not.toBeNull();
    interceptor = telemetry.interceptor!;

    outcomes.ok1 = await interceptor(op('call_tool', 'echo', { requestId: 7, userId: 'alice' }), async () => okResult);
    outcomes.ok2 = await interceptor(op('call_tool', 'echo', { requestId: 8 }), async () => okResult);
    outcomes.toolError = await interceptor(op('call_tool', 'fail_tool', { requestId: 'abc' }), async () => toolError);
    outcomes.thrown = await interceptor(op('get_prompt', 'boom', { requestId: 9 }), async () => {
      throw thrown;
    }).catch((err: unknown) => ({ rejectedWith: err }));
    const resCtx = op('read_resource', 'file:///tmp/a.txt', { backend: undefined, requestId: 10 });
    outcomes.resource = await interceptor(resCtx, async () => {
      resCtx.backend = 'files'; // resolved by the router while the request runs
      return { contents: [] };
    });
    await telemetry.flush();
  });

  afterAll(async () => {
    await telemetry?.shutdown();
    await receiver?.close();
  });

  it('is enabled and passes results and errors through unchanged', () => {
    expect(telemetry.enabled).toBe(true);
    expect(outcomes.ok1).toBe(okResult);
    expect(outcomes.toolError).toBe(toolError);
    expect(outcomes.thrown).toEqual({ rejectedWith: thrown });
    expect((outcomes.thrown as { rejectedWith: unknown }).rejectedWith).toBe(thrown);
  });

  it('exports spans as OTLP JSON to <endpoint>/v1/traces', async () => {
    await receiver.waitForSpan('mcp.call_tool.echo');
    const traceReq = receiver.requests.find((r) => r.path === '/v1/traces');
    expect(traceReq).toMatchObject({ status: 200 });
    expect(traceReq!.contentType).toContain('application/json');
    expect(receiver.requests.some((r) => r.path === '/v1/metrics')).toBe(true);
  });

  it('creates one span per request named mcp.<method>.<capability> with the four attributes', async () => {
    await receiver.waitFor(() => receiver.spans().length >= 5);
    const spans = receiver.spans();
    expect(spans.map((s) => s.name).sort()).toEqual([
      'mcp.call_tool.echo',
      'mcp.call_tool.echo',
      'mcp.call_tool.fail_tool',
      'mcp.get_prompt.boom',
      'mcp.read_resource.file:///tmp/a.txt',
    ]);
    const echo = spans.find((s) => s.attributes['mcp.request_id'] === '7')!;
    expect(echo.name).toBe('mcp.call_tool.echo');
    expect(echo.attributes).toMatchObject({
      'mcp.method': 'call_tool',
      'mcp.capability': 'echo',
      'mcp.request_id': '7',
      'mcp.backend': 'b1',
      // The authenticated caller (incoming_auth); an anonymous one has none.
      'enduser.id': 'alice',
    });
    expect('enduser.id' in spans.find((s) => s.attributes['mcp.request_id'] === '8')!.attributes).toBe(false);
    expect(echo.kind).toBe(OTLP_SPAN_KIND_SERVER);
    expect(echo.status.code ?? 0).not.toBe(OTLP_STATUS_ERROR);
    expect(echo.events).toEqual([]);
    expect(echo.resource['service.name']).toBe('gw-test');
    expect(echo.scope).toBe('mcp-gateway');
    // every request is its own trace root
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(5);
  });

  it('marks a tool-level error ({isError: true}) as an error span without an exception event', async () => {
    const span = await receiver.waitForSpan('mcp.call_tool.fail_tool');
    expect(span.attributes).toMatchObject({
      'mcp.method': 'call_tool',
      'mcp.capability': 'fail_tool',
      'mcp.request_id': 'abc',
      'mcp.backend': 'b1',
      'error.type': 'tool_error',
    });
    expect(span.status.code).toBe(OTLP_STATUS_ERROR);
    expect(span.events).toEqual([]);
  });

  it('records a thrown error as an exception event and sets status ERROR', async () => {
    const span = await receiver.waitForSpan('mcp.get_prompt.boom');
    expect(span.attributes).toMatchObject({
      'mcp.method': 'get_prompt',
      'mcp.capability': 'boom',
      'mcp.request_id': '9',
      'mcp.backend': 'b1',
      'error.type': 'Error',
    });
    expect(span.status).toMatchObject({ code: OTLP_STATUS_ERROR, message: 'kaput' });
    const exception = span.events.find((e) => e.name === 'exception');
    expect(exception).toBeDefined();
    expect(exception!.attributes).toMatchObject({ 'exception.type': 'Error', 'exception.message': 'kaput' });
    expect(String(exception!.attributes['exception.stacktrace'])).toContain('kaput');
  });

  it('picks up a backend that is resolved while the request runs', async () => {
    const span = await receiver.waitForSpan('mcp.read_resource.file:///tmp/a.txt');
    expect(span.attributes).toMatchObject({
      'mcp.method': 'read_resource',
      'mcp.capability': 'file:///tmp/a.txt',
      'mcp.request_id': '10',
      'mcp.backend': 'files',
    });
  });

  it('exports a request counter labelled tool_name, backend, success', async () => {
    const series = (m: ReceivedMetric) => new Map(m.dataPoints.map((p) => [JSON.stringify(p.attributes), p.value]));
    const key = (tool_name: string, backend: string, success: boolean) => JSON.stringify({ tool_name, backend, success });
    // cumulative temporality: wait for an export that contains all series
    const counter = await receiver.waitFor(() => {
      const m = receiver.latestMetric(METRIC_REQUESTS, 'gw-test');
      return m && m.dataPoints.length === 4 ? m : undefined;
    });
    expect(counter).toMatchObject({ type: 'sum', isMonotonic: true, unit: '{request}', scope: 'mcp-gateway' });
    for (const p of counter.dataPoints) {
      expect(Object.keys(p.attributes).sort()).toEqual(['backend', 'success', 'tool_name']);
    }
    expect(series(counter)).toEqual(
      new Map([
        [key('echo', 'b1', true), 2],
        [key('fail_tool', 'b1', false), 1],
        [key('boom', 'b1', false), 1],
        [key('file:///tmp/a.txt', 'files', true), 1],
      ]),
    );
  });

  it('exports a request duration histogram labelled tool_name, backend', async () => {
    const histogram = await receiver.waitFor(() => {
      const m = receiver.latestMetric(METRIC_REQUEST_DURATION, 'gw-test');
      return m && m.dataPoints.length === 4 ? m : undefined;
    });
    expect(histogram).toMatchObject({ type: 'histogram', unit: 's' });
    const byTool = new Map(histogram.dataPoints.map((p) => [p.attributes.tool_name, p]));
    expect([...byTool.keys()].sort()).toEqual(['boom', 'echo', 'fail_tool', 'file:///tmp/a.txt']);
    for (const p of histogram.dataPoints) {
      expect(Object.keys(p.attributes).sort()).toEqual(['backend', 'tool_name']);
      expect(p.sum).toBeGreaterThanOrEqual(0);
      expect(p.sum!).toBeLessThan(5); // seconds
      expect(p.explicitBounds).toContain(0.005);
    }
    expect(byTool.get('echo')).toMatchObject({ attributes: { tool_name: 'echo', backend: 'b1' }, count: 2 });
    expect(byTool.get('boom')!.count).toBe(1);
    expect(byTool.get('file:///tmp/a.txt')!.attributes.backend).toBe('files');
  });

  it('shutdown() flushes spans and metrics that were not exported yet', async () => {
    const t = await initTelemetry({
      endpoint: `${receiver.url}/`,
      serviceName: 'gw-shutdown',
      metricExportIntervalMs: 60_000,
    });
    expect(t.enabled).toBe(true);
    await t.interceptor!(op('call_tool', 'late', { backend: 'b2' }), async () => 'done');
    expect(receiver.spans().some((s) => s.name === 'mcp.call_tool.late')).toBe(false);

    await t.shutdown();
    // no waiting: shutdown() resolves only after both exports were answered
    const span = receiver.spans().find((s) => s.name === 'mcp.call_tool.late');
    expect(span?.resource['service.name']).toBe('gw-shutdown');
    const counter = receiver.latestMetric(METRIC_REQUESTS, 'gw-shutdown');
    expect(counter?.dataPoints).toEqual([expect.objectContaining({ attributes: { tool_name: 'late', backend: 'b2', success: true }, value: 1 })]);
    expect(receiver.latestMetric(METRIC_REQUEST_DURATION, 'gw-shutdown')?.dataPoints).toHaveLength(1);

    // idempotent, and the interceptor keeps passing requests through afterwards
    await t.shutdown();
    await expect(t.interceptor!(op('call_tool', 'after'), async () => 42)).resolves.toBe(42);
  });

  it('reads OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_SERVICE_NAME from the environment', async () => {
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
    process.env.OTEL_SERVICE_NAME = 'gw-env';
    let t: Telemetry;
    try {
      t = await initTelemetry({ metricExportIntervalMs: 60_000 });
    } finally {
      delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
      delete process.env.OTEL_SERVICE_NAME;
    }
    expect(t.enabled).toBe(true);
    await t.interceptor!(op('call_tool', 'env_tool'), async () => 'ok');
    await t.shutdown();
    const span = receiver.spans().find((s) => s.name === 'mcp.call_tool.env_tool');
    expect(span?.resource['service.name']).toBe('gw-env');
    expect(receiver.latestMetric(METRIC_REQUESTS, 'gw-env')).toBeDefined();
  });
});

describe('telemetry disabled', () => {
  const absent: ModuleImporter = async (specifier) => {
    throw Object.assign(new Error(`Cannot find package '${specifier}' imported from test`), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
  };

  it('returns interceptor null when no endpoint is configured, without loading OpenTelemetry', async () => {
    const importer = vi.fn<ModuleImporter>((s) => import(s));
    const t = await initTelemetry({ importer });
    expect(t.interceptor).toBeNull();
    expect(t.enabled).toBe(false);
    expect(importer).not.toHaveBeenCalled();
    await expect(t.shutdown()).resolves.toBeUndefined();
    await expect(t.flush()).resolves.toBeUndefined();
  });

  it('returns interceptor null when OTEL_SDK_DISABLED=true', async () => {
    process.env.OTEL_SDK_DISABLED = 'true';
    try {
      const t = await initTelemetry({ endpoint: 'http://127.0.0.1:4318' });
      expect(t).toMatchObject({ interceptor: null, enabled: false });
    } finally {
      delete process.env.OTEL_SDK_DISABLED;
    }
  });

  it('returns interceptor null for an invalid endpoint', async () => {
    const log = logger();
    const t = await initTelemetry({ endpoint: 'not a url', logger: log });
    expect(t).toMatchObject({ interceptor: null, enabled: false });
    expect(log.warn).toHaveBeenCalledWith(expect.stringContaining('invalid OTLP endpoint'));
  });

  it('returns interceptor null and enabled false when the OpenTelemetry packages are not installed', async () => {
    const log = logger();
    const importer = vi.fn(absent);
    const t = await initTelemetry({ endpoint: 'http://127.0.0.1:4318', importer, logger: log });
    expect(t.interceptor).toBeNull();
    expect(t.enabled).toBe(false);
    expect(importer).toHaveBeenCalled();
    expect(log.info).toHaveBeenCalledWith(expect.stringContaining('not installed'));
    expect(log.warn).not.toHaveBeenCalled();
    await expect(t.shutdown()).resolves.toBeUndefined();
  });

  it('loadOtel() resolves to null when a single package is missing', async () => {
    const importer: ModuleImporter = (s) => (s === '@opentelemetry/exporter-metrics-otlp-http' ? absent(s) : import(s));
    await expect(loadOtel({ importer })).resolves.toBeNull();
  });

  it('loadOtel() resolves to null (with a warning) when a package lacks the expected exports', async () => {
    const log = logger();
    const importer: ModuleImporter = async (s) => (s === '@opentelemetry/api' ? {} : import(s));
    await expect(loadOtel({ importer, logger: log })).resolves.toBeNull();
    expect(log.warn).toHaveBeenCalledWith(expect.stringContaining("'SpanStatusCode'"));
  });

  it('loadOtel() loads the installed packages and falls back to sdk-node for resources', async () => {
    await expect(loadOtel()).resolves.not.toBeNull();
    const importer = vi.fn<ModuleImporter>((s) => (s === '@opentelemetry/resources' ? absent(s) : import(s)));
    const otel = await loadOtel({ importer });
    expect(otel).not.toBeNull();
    expect(importer).toHaveBeenCalledWith('@opentelemetry/sdk-node');
    expect(typeof otel!.resources.resourceFromAttributes).toBe('function');
  });
});
