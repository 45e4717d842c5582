/**
 * End to end: tracing and metrics of a real gateway.
 *
 *  - With OTEL_EXPORTER_OTLP_ENDPOINT pointing at a local OTLP/HTTP receiver,
 *    MCP calls through a real client produce one span per request
 *    (`mcp.<method>.<capability>`, attributes, exceptions) and the request
 *    counter and duration histogram, exported while the gateway runs.
 *  - With the OpenTelemetry packages physically absent (a copy of the build
 *    whose node_modules lacks @opentelemetry/*) and the endpoint still set,
 *    the real CLI starts, serves calls, and exports nothing.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AuditRecord } from '../../../../schemas/audit-record.js';
import { METRIC_REQUEST_DURATION, METRIC_REQUESTS } from '../../../../runtime/observability/telemetry/index.js';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedMetric, type ReceivedSpan } from '../../../helpers/otlp-receiver.js';
import { fixtureCommand, repoRoot } from '../../../fixtures/spawn.js';
import { startGatewayCli } from '../../../helpers/gateway-cli.js';

const OTLP_SPAN_KIND_SERVER = 2;
const OTLP_STATUS_ERROR = 2;
const SERVICE = 'gw-telemetry-e2e';

const OTEL_ENV: Record<string, string | undefined> = {
  OTEL_EXPORTER_OTLP_ENDPOINT: undefined, // set to the receiver's URL
  OTEL_SERVICE_NAME: SERVICE,
  OTEL_METRIC_EXPORT_INTERVAL: '300',
  OTEL_BSP_SCHEDULE_DELAY: '100',
  OTEL_SDK_DISABLED: undefined,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
  OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: undefined,
  OTEL_RESOURCE_ATTRIBUTES: undefined,
};

/** Sets the variables for the duration of a gateway start, returns a restore function. */
function setEnv(values: Record<string, string | undefined>): () => void {
  const saved = Object.fromEntries(Object.keys(values).map((k) => [k, process.env[k]]));
  const apply = (v: Record<string, string | undefined>) => {
    for (const [k, x] of Object.entries(v)) {
      if (x === undefined) delete process.env[k];
      else process.env[k] = x;
    }
  };
  apply(values);
  return () => apply(saved);
}

function points(metric: ReceivedMetric | undefined) {
  return (metric?.dataPoints ?? []).map((p) => ({ ...p.attributes, value: p.value, count: p.count }));
}

describe('telemetry: spans and metrics of MCP requests reach an OTLP/HTTP receiver', () => {
  let receiver: OtlpReceiver;
  let h: Harness;
  let spans: ReceivedSpan[];
  let audit: AuditRecord[];

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    const restore = setEnv({ ...OTEL_ENV, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    try {
      const s = fixtureCommand(['--name', 's']);
      h = await startGateway({ health: { interval_s: 3600 }, backends: { s: { type: 'stdio', command: s.command, args: s.args } } });
    } finally {
      // The exporters read the variables when they are built, during start.
      restore();
    }
    expect(h.gateway.telemetry.enabled).toBe(true);
    const client = await h.connect();
    await client.callTool({ name: 's_echo', arguments: { text: 'one' } });
    await client.callTool({ name: 's_echo', arguments: { text: 'two' } });
    await client.callTool({ name: 's_fail', arguments: { message: 'tool says no' } });
    await expect(client.callTool({ name: 's_throw', arguments: { message: 'boom' } })).rejects.toThrow(/boom/);
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow();
    await client.readResource({ uri: 'fixture://s/info' });
    await client.getPrompt({ name: 's_greet', arguments: { name: 'Ada' } });
    // Exported on the schedule while the gateway runs, not only at shutdown.
    spans = await receiver.waitFor(() => receiver.spans().length >= 7 && receiver.spans(), 10_000);
    await receiver.waitFor(() => {
      const total = points(receiver.latestMetric(METRIC_REQUESTS, SERVICE)).reduce((n, p) => n + (p.value ?? 0), 0);
      return total === 7;
    }, 10_000);
    await h.close();
    audit = readFileSync(h.gateway.controller.config.audit.file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as AuditRecord);
  }, 60_000);

  afterAll(async () => {
    await receiver?.close();
  });

  it('one span per request named mcp.<method>.<capability_name>', () => {
    expect(spans.map((s) => s.name).sort()).toEqual([
      'mcp.call_tool.no_such_tool',
      'mcp.call_tool.s_echo',
      'mcp.call_tool.s_echo',
      'mcp.call_tool.s_fail',
      'mcp.call_tool.s_throw',
      'mcp.get_prompt.s_greet',
      'mcp.read_resource.fixture://s/info',
    ]);
    for (const s of spans) {
      expect(s.kind).toBe(OTLP_SPAN_KIND_SERVER);
      expect(s.resource['service.name']).toBe(SERVICE);
    }
  });

  it('spans carry mcp.method, mcp.capability, mcp.request_id (the JSON-RPC id, as audited) and mcp.backend', () => {
    expect(audit).toHaveLength(7);
    for (const record of audit) {
      const name = `mcp.${record.target.method}.${record.target.capability_name}`;
      const span = spans.find((s) => s.name === name && s.attributes['mcp.request_id'] === String(record.metadata.jsonrpc_id));
      expect(span, `${name} #${record.metadata.jsonrpc_id}`).toBeDefined();
      expect(span!.attributes).toMatchObject({
        'mcp.method': record.target.method,
        'mcp.capability': record.target.capability_name,
        'mcp.session_id': record.source.session_id,
      });
      if (record.target.backend) expect(span!.attributes['mcp.backend']).toBe(record.target.backend);
      else expect(span!.attributes['mcp.backend']).toBeUndefined();
    }
  });

  it('records exceptions (backend error, unknown name) and marks tool errors as errors', () => {
    const byName = (n: string) => spans.find((s) => s.name === n)!;
    const thrown = byName('mcp.call_tool.s_throw');
    expect(thrown.status.code).toBe(OTLP_STATUS_ERROR);
    expect(thrown.events.map((e) => e.name)).toEqual(['exception']);
    expect(thrown.events[0].attributes['exception.message']).toMatch(/boom/);
    expect(thrown.events[0].attributes['exception.type']).toBe('BackendCallError');

    const unknown = byName('mcp.call_tool.no_such_tool');
    expect(unknown.status.code).toBe(OTLP_STATUS_ERROR);
    expect(unknown.events[0].attributes['exception.type']).toBe('ToolNotFoundError');

    const toolError = byName('mcp.call_tool.s_fail');
    expect(toolError.status.code).toBe(OTLP_STATUS_ERROR);
    expect(toolError.events).toEqual([]);

    expect(byName('mcp.read_resource.fixture://s/info').status.code ?? 0).not.toBe(OTLP_STATUS_ERROR);
  });

  it('request counter labelled tool_name, backend, success', () => {
    const counter = receiver.latestMetric(METRIC_REQUESTS, SERVICE);
    expect(counter?.type).toBe('sum');
    expect(counter?.isMonotonic).toBe(true);
    expect(points(counter).map(({ count: _c, ...p }) => p)).toEqual(
      expect.arrayContaining([
        { tool_name: 's_echo', backend: 's', success: true, value: 2 },
        { tool_name: 's_fail', backend: 's', success: false, value: 1 },
        { tool_name: 's_throw', backend: 's', success: false, value: 1 },
        { tool_name: 'no_such_tool', backend: 'unknown', success: false, value: 1 },
        { tool_name: 'fixture://s/info', backend: 's', success: true, value: 1 },
        { tool_name: 's_greet', backend: 's', success: true, value: 1 },
      ]),
    );
  });

  it('duration histogram labelled tool_name, backend', () => {
    const histogram = receiver.latestMetric(METRIC_REQUEST_DURATION, SERVICE);
    expect(histogram?.type).toBe('histogram');
    const ps = histogram!.dataPoints;
    for (const p of ps) expect(Object.keys(p.attributes).sort()).toEqual(['backend', 'tool_name']);
    const echo = ps.find((p) => p.attributes.tool_name === 's_echo')!;
    expect(echo.count).toBe(2);
    expect(echo.sum).toBeGreaterThan(0);
    expect(ps.reduce((n, p) => n + (p.count ?? 0), 0)).toBe(7);
  });
});

describe('telemetry: the OpenTelemetry packages removed', () => {
  let receiver: OtlpReceiver;
  let appDir: string;

  /** A runnable copy of the build whose node_modules has every package of this repository except @opentelemetry/*. */
  function installWithoutOtel(): string {
    const root = repoRoot();
    const dir = mkdtempSync(join(tmpdir(), 'gw-no-otel-'));
    // Copies, not links: Node resolves a linked file's imports from its real location.
    for (const part of readdirSync(join(root, 'dist'))) {
      if (part === 'test' || part === 'bench') continue;
      cpSync(join(root, 'dist', part), join(dir, 'dist', part), { recursive: true });
    }
    cpSync(join(root, 'package.json'), join(dir, 'package.json'));
    mkdirSync(join(dir, 'node_modules'));
    for (const entry of readdirSync(join(root, 'node_modules'))) {
      if (entry === '@opentelemetry' || entry.startsWith('.')) continue;
      symlinkSync(join(root, 'node_modules', entry), join(dir, 'node_modules', entry));
    }
    return dir;
  }

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    appDir = installWithoutOtel();
  });

  afterAll(async () => {
    await receiver?.close();
  });

  it('the copy really cannot import @opentelemetry/api', () => {
    const probe = spawnSync(process.execPath, ['--input-type=module', '-e', "await import('@opentelemetry/api')"], {
      cwd: join(appDir, 'dist'),
      encoding: 'utf8',
    });
    expect(probe.status).not.toBe(0);
    expect(probe.stderr).toMatch(/ERR_MODULE_NOT_FOUND|Cannot find package/);
  });

  it('starts with OTEL_EXPORTER_OTLP_ENDPOINT set, serves MCP calls and exports nothing', async () => {
    const s = fixtureCommand(['--name', 's']);
    writeFileSync(
      join(appDir, 'config.yaml'),
      stringify({
        server: { host: '127.0.0.1', port: 0 },
        audit: { file: join(appDir, 'audit.jsonl') },
        health: { interval_s: 3600 },
        backends: { s: { type: 'stdio', command: s.command, args: s.args } },
      }),
    );
    const gw = await startGatewayCli({
      cwd: appDir,
      cliPath: join(appDir, 'dist', 'cli', 'gateway.js'),
      args: ['--config', join(appDir, 'config.yaml'), '--port', '0', '--log-level', 'info', '--log-format', 'json'],
      env: { ...process.env, ...OTEL_ENV, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_METRIC_EXPORT_INTERVAL: '100' },
    });
    const client = new Client({ name: 'no-otel', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`)));
      const r = await client.callTool({ name: 's_echo', arguments: { text: 'without otel' } });
      expect(r.structuredContent).toEqual({ text: 'without otel' });
      await expect(client.callTool({ name: 's_throw', arguments: {} })).rejects.toThrow();
    } finally {
      await client.close().catch(() => undefined);
    }
    const exit = await gw.stop();
    expect(exit).toMatchObject({ code: 0, killed: false });
    const logs = gw
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; level: number });
    expect(logs.some((l) => /telemetry disabled: OpenTelemetry packages not installed/.test(l.msg))).toBe(true);
    expect(logs.some((l) => /telemetry enabled/.test(l.msg))).toBe(false);
    // Audit still works; nothing reached the receiver.
    expect(readFileSync(join(appDir, 'audit.jsonl'), 'utf8').trim().split('\n')).toHaveLength(2);
    expect(receiver.requests).toEqual([]);
  });
});
