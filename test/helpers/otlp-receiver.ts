/**
 * A tiny OTLP/HTTP receiver for tests: listens on 127.0.0.1 (random port),
 * accepts JSON-encoded POST /v1/traces and /v1/metrics (gzip allowed), keeps
 * everything it received and lets a test wait for a span or metric.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export type AttrMap = Record<string, unknown>;

export interface ReceivedSpan {
  name: string;
  kind?: number;
  traceId: string;
  spanId: string;
  attributes: AttrMap;
  events: { name: string; attributes: AttrMap }[];
  status: { code?: number; message?: string };
  resource: AttrMap;
  scope: string;
}

export interface ReceivedDataPoint {
  attributes: AttrMap;
  /** Sum / gauge value. */
  value?: number;
  /** Histogram fields. */
  count?: number;
  sum?: number;
  bucketCounts?: number[];
  explicitBounds?: number[];
}

export interface ReceivedMetric {
  name: string;
  unit?: string;
  type: 'sum' | 'gauge' | 'histogram' | 'exponentialHistogram' | 'unknown';
  isMonotonic?: boolean;
  dataPoints: ReceivedDataPoint[];
  resource: AttrMap;
  scope: string;
  /** Index of the export request it came in (later exports of cumulative metrics supersede earlier ones). */
  batch: number;
}

export interface ReceivedRequest {
  path: string;
  contentType: string;
  status: number;
}

export interface OtlpReceiver {
  /** Base URL, e.g. http://127.0.0.1:40123 (use as OTEL_EXPORTER_OTLP_ENDPOINT). */
  url: string;
  requests: ReceivedRequest[];
  /** Raw decoded bodies. */
  traceBodies: unknown[];
  metricBodies: unknown[];
  spans(): ReceivedSpan[];
  metrics(): ReceivedMetric[];
  /** Data points of the latest export of metric `name` (optionally for one service.name). */
  latestMetric(name: string, serviceName?: string): ReceivedMetric | undefined;
  /** Resolves with the first truthy value of `predicate`, re-checked after every received export. */
  waitFor<T>(predicate: () => T | undefined | null | false, timeoutMs?: number): Promise<T>;
  waitForSpan(name: string, timeoutMs?: number): Promise<ReceivedSpan>;
  waitForMetric(name: string, timeoutMs?: number): Promise<ReceivedMetric>;
  close(): Promise<void>;
}

/** OTLP/JSON AnyValue -> plain JS value. */
export function anyValue(v: any): unknown {
  if (v == null || typeof v !== 'object') return v;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return Number(v.doubleValue);
  if ('bytesValue' in v) return v.bytesValue;
  if ('arrayValue' in v) return (v.arrayValue?.values ?? []).map(anyValue);
  if ('kvlistValue' in v) return attrs(v.kvlistValue?.values);
  return undefined;
}

export function attrs(list: any): AttrMap {
  const out: AttrMap = {};
  for (const kv of Array.isArray(list) ? list : []) out[kv.key] = anyValue(kv.value);
  return out;
}

const num = (v: unknown): number | undefined => (v === undefined || v === null ? undefined : Number(v));

function flattenSpans(body: any): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of body?.resourceSpans ?? []) {
    const resource = attrs(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          name: s.name,
          kind: s.kind,
          traceId: s.traceId,
          spanId: s.spanId,
          attributes: attrs(s.attributes),
          events: (s.events ?? []).map((e: any) => ({ name: e.name, attributes: attrs(e.attributes) })),
          status: s.status ?? {},
          resource,
          scope: ss.scope?.name ?? '',
        });
      }
    }
  }
  return out;
}

function flattenMetrics(body: any, batch: number): ReceivedMetric[] {
  const out: ReceivedMetric[] = [];
  for (const rm of body?.resourceMetrics ?? []) {
    const resource = attrs(rm.resource?.attributes);
    for (const sm of rm.scopeMetrics ?? []) {
      for (const m of sm.metrics ?? []) {
        const type = (['sum', 'gauge', 'histogram', 'exponentialHistogram'] as const).find((t) => m[t] !== undefined);
        const data = type ? m[type] : undefined;
        out.push({
          name: m.name,
          unit: m.unit,
          type: type ?? 'unknown',
          isMonotonic: data?.isMonotonic,
          dataPoints: (data?.dataPoints ?? []).map((p: any) => ({
            attributes: attrs(p.attributes),
            value: num(p.asInt ?? p.asDouble),
            count: num(p.count),
            sum: num(p.sum),
            bucketCounts: p.bucketCounts?.map(Number),
            explicitBounds: p.explicitBounds?.map(Number),
          })),
          resource,
          scope: sm.scope?.name ?? '',
          batch,
        });
      }
    }
  }
  return out;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const requests: ReceivedRequest[] = [];
  const traceBodies: unknown[] = [];
  const metricBodies: unknown[] = [];
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const l of [...listeners]) l();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0];
    const contentType = String(req.headers['content-type'] ?? '');
    const reply = (status: number, body: string) => {
      requests.push({ path, contentType, status });
      res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    };
    if (req.method !== 'POST' || (path !== '/v1/traces' && path !== '/v1/metrics')) {
      return reply(404, '{}');
    }
    if (!contentType.includes('json')) return reply(415, '{"message":"test receiver only accepts JSON"}');
    try {
      let raw = await readBody(req);
      if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
      const body = JSON.parse(raw.toString('utf8'));
      (path === '/v1/traces' ? traceBodies : metricBodies).push(body);
      reply(200, '{}');
    } catch (err) {
      reply(400, JSON.stringify({ message: String(err) }));
    }
    notify();
  };

  const server = createServer((req, res) => {
    void handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const spans = () => traceBodies.flatMap(flattenSpans);
  const metrics = () => metricBodies.flatMap((b, i) => flattenMetrics(b, i));

  const waitFor = <T>(predicate: () => T | undefined | null | false, timeoutMs = 5_000): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const check = (): boolean => {
        let value: T | undefined | null | false;
        try {
          value = predicate();
        } catch (err) {
          finish();
          reject(err);
          return true;
        }
        if (!value) return false;
        finish();
        resolve(value);
        return true;
      };
      const listener = () => void check();
      const timer = setTimeout(() => {
        finish();
        reject(
          new Error(
            `OTLP receiver: condition not met within ${timeoutMs} ms; received spans ` +
              `[${spans()
                .map((s) => s.name)
                .join(', ')}], metrics [${[...new Set(metrics().map((m) => m.name))].join(', ')}]`,
          ),
        );
      }, timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        listeners.delete(listener);
      };
      listeners.add(listener);
      check();
    });

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    traceBodies,
    metricBodies,
    spans,
    metrics,
    latestMetric(name, serviceName) {
      let latest: ReceivedMetric | undefined;
      for (const m of metrics()) {
        if (m.name !== name) continue;
        if (serviceName !== undefined && m.resource['service.name'] !== serviceName) continue;
        latest = m;
      }
      return latest;
    },
    waitFor,
    waitForSpan: (name, timeoutMs) => waitFor(() => spans().find((s) => s.name === name), timeoutMs),
    waitForMetric: (name, timeoutMs) => waitFor(() => metrics().find((m) => m.name === name), timeoutMs),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
