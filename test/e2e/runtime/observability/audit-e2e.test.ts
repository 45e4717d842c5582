/**
 * End to end: the audit trail of a real gateway with real backends and real
 * MCP clients on /mcp and /sse.
 *
 *  - a mixed run (successes, a tool error, a JSON-RPC error, a timeout,
 *    unknown tool / resource / prompt, a backend that went down) leaves
 *    exactly one record per operation, every field right, in order;
 *  - a small audit.max_size_mb rotates into file.1 … file.N, keeping
 *    backup_count files, and with enough backups no record is lost even
 *    when the gateway is shut down right after a burst of calls;
 *  - audit.enabled: false writes nothing.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../../helpers/wait.js';
import { Value } from '@sinclair/typebox/value';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { AuditRecord } from '../../../../schemas/audit-record.js';
import { AUDIT_LEVEL } from '../../../../runtime/observability/logging/logger.js';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { fixtureCommand, startHttpFixture, type HttpFixture } from '../../../fixtures/spawn.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface SentRequest {
  id: string | number;
  method: string;
  /** Tool / prompt name or resource URI. */
  target?: string;
}

/** A real SDK client that also remembers the JSON-RPC id of every request it sent. */
async function connectRecording(url: string, transport: 'streamable-http' | 'sse') {
  const sent: SentRequest[] = [];
  const t: Transport = transport === 'sse' ? new SSEClientTransport(new URL(`${url}/sse`)) : new StreamableHTTPClientTransport(new URL(`${url}/mcp`));
  const send = t.send.bind(t);
  t.send = (message, options) => {
    const m = message as { id?: string | number; method?: string; params?: { name?: string; uri?: string } };
    if (m.id !== undefined && m.method) sent.push({ id: m.id, method: m.method, target: m.params?.name ?? m.params?.uri });
    return send(message, options);
  };
  const client = new Client({ name: 'audit-e2e', version: '1.0.0' });
  await client.connect(t);
  const sessionId =
    transport === 'sse'
      ? ((t as unknown as { _endpoint?: URL })._endpoint?.searchParams.get('sessionId') ?? undefined)
      : (t as StreamableHTTPClientTransport).sessionId;
  const idOf = (method: string, target: string) => {
    const matches = sent.filter((s) => s.method === method && s.target === target);
    expect(matches, `${method} ${target} sent once`).toHaveLength(1);
    return matches[0].id;
  };
  return { client, sessionId: sessionId!, idOf };
}

function readRecords(file: string): AuditRecord[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as AuditRecord);
}

interface Expected {
  transport: 'streamable-http' | 'sse' | 'management';
  backend: string;
  /** The operations of a name (tasks have their own test: test/e2e/runtime/tasks/). */
  method: Exclude<AuditRecord['target']['method'], 'task'>;
  capability_name: string;
  original_name: string;
  status: 'success' | 'error';
  error_type: string | string[] | null;
  error?: RegExp;
  /** JSON-RPC method and target, to look up the id the client sent. */
  rpc: [string, string];
}

describe('audit: one record per MCP operation, every field right', () => {
  let h: Harness;
  let down: HttpFixture;
  let records: AuditRecord[];
  const expected: Expected[] = [];
  const sessions: Record<string, string> = {};
  const ids: Array<string | number | null> = [];
  let auditLogLines: Array<Record<string, any>>;

  beforeAll(async () => {
    down = await startHttpFixture({ transport: 'streamable-http', name: 'down' });
    const s = fixtureCommand(['--name', 's']);
    h = await startGateway(
      {
        health: { interval_s: 3600 },
        backends: {
          s: {
            type: 'stdio',
            command: s.command,
            args: s.args,
            timeouts: { request_s: 0.5 },
            rename: { tools: { add: { name: 'plus' } } },
          },
          down: { type: 'streamable-http', url: down.url, timeouts: { request_s: 5 } },
        },
        // Mirrored on the console when asked for; then they must get through a warn-level logger.
        audit: { console: true },
      },
      { logLevel: 'warn' },
    );
    expect(h.gateway.telemetry.enabled).toBe(false);
    const file = h.gateway.controller.config.audit.file;

    const a = await connectRecording(h.url, 'streamable-http');
    const b = await connectRecording(h.url, 'sse');
    sessions['streamable-http'] = a.sessionId;
    sessions.sse = b.sessionId;
    expect(a.sessionId).toBeTruthy();
    expect(b.sessionId).toBeTruthy();
    expect(a.sessionId).not.toBe(b.sessionId);

    const op = async (c: typeof a, transport: Expected['transport'], e: Omit<Expected, 'transport' | 'rpc'>, call: () => Promise<unknown>) => {
      const rpcMethod = ({ call_tool: 'tools/call', read_resource: 'resources/read', get_prompt: 'prompts/get', complete: 'completion/complete' } as const)[
        e.method
      ];
      expected.push({ ...e, transport, rpc: [rpcMethod, e.capability_name] });
      await call();
      ids.push(c.idOf(rpcMethod, e.capability_name));
    };
    const ok = { status: 'success' as const, error_type: null };

    // Not MCP operations: no records.
    await a.client.listTools();
    await a.client.listResources();

    await op(a, 'streamable-http', { backend: 's', method: 'call_tool', capability_name: 's_echo', original_name: 'echo', ...ok }, async () => {
      expect((await a.client.callTool({ name: 's_echo', arguments: { text: 'hi' } })).structuredContent).toEqual({ text: 'hi' });
    });
    await op(a, 'streamable-http', { backend: 's', method: 'call_tool', capability_name: 's_plus', original_name: 'add', ...ok }, async () => {
      await a.client.callTool({ name: 's_plus', arguments: { a: 1, b: 2 } });
    });
    await op(
      a,
      'streamable-http',
      { backend: 's', method: 'call_tool', capability_name: 's_fail', original_name: 'fail', status: 'error', error_type: 'ToolError', error: /^nope$/ },
      async () => expect((await a.client.callTool({ name: 's_fail', arguments: { message: 'nope' } })).isError).toBe(true),
    );
    await op(
      a,
      'streamable-http',
      { backend: 's', method: 'call_tool', capability_name: 's_throw', original_name: 'throw', status: 'error', error_type: 'BackendCallError', error: /boom/ },
      () => expect(a.client.callTool({ name: 's_throw', arguments: { message: 'boom' } })).rejects.toThrow(/boom/),
    );
    await op(
      a,
      'streamable-http',
      {
        backend: 's',
        method: 'call_tool',
        capability_name: 's_slow',
        original_name: 'slow',
        status: 'error',
        error_type: 'BackendTimeoutError',
        error: /500 ms/,
      },
      () => expect(a.client.callTool({ name: 's_slow', arguments: { steps: 1, delay_ms: 1500 } })).rejects.toThrow(),
    );
    await op(
      a,
      'streamable-http',
      {
        backend: '',
        method: 'call_tool',
        capability_name: 'no_such_tool',
        original_name: 'no_such_tool',
        status: 'error',
        error_type: 'ToolNotFoundError',
        error: /no_such_tool/,
      },
      () => expect(a.client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(),
    );
    await op(
      a,
      'streamable-http',
      { backend: 's', method: 'read_resource', capability_name: 'fixture://s/info', original_name: 'fixture://s/info', ...ok },
      async () => {
        await a.client.readResource({ uri: 'fixture://s/info' });
      },
    );
    await op(
      a,
      'streamable-http',
      {
        backend: '',
        method: 'read_resource',
        capability_name: 'fixture://nope/info',
        original_name: 'fixture://nope/info',
        status: 'error',
        error_type: 'ResourceNotFoundError',
        error: /fixture:\/\/nope\/info/,
      },
      () => expect(a.client.readResource({ uri: 'fixture://nope/info' })).rejects.toThrow(),
    );
    await op(a, 'streamable-http', { backend: 's', method: 'get_prompt', capability_name: 's_greet', original_name: 'greet', ...ok }, async () => {
      await a.client.getPrompt({ name: 's_greet', arguments: { name: 'Ada' } });
    });
    await op(
      a,
      'streamable-http',
      {
        backend: '',
        method: 'get_prompt',
        capability_name: 'no_such_prompt',
        original_name: 'no_such_prompt',
        status: 'error',
        error_type: 'PromptNotFoundError',
        error: /no_such_prompt/,
      },
      () => expect(a.client.getPrompt({ name: 'no_such_prompt' })).rejects.toThrow(),
    );
    await op(b, 'sse', { backend: 's', method: 'call_tool', capability_name: 's_echo', original_name: 'echo', ...ok }, async () => {
      await b.client.callTool({ name: 's_echo', arguments: { text: 'over sse' } });
    });
    await op(b, 'sse', { backend: 'down', method: 'call_tool', capability_name: 'down_echo', original_name: 'echo', ...ok }, async () => {
      await b.client.callTool({ name: 'down_echo', arguments: { text: 'still up' } });
    });
    // The management API's proxy endpoints take the same audited path; there is no JSON-RPC id.
    sessions.management = 'management';
    const manage = async (e: Omit<Expected, 'transport' | 'rpc'>, path: string, body: unknown, status: number) => {
      expected.push({ ...e, transport: 'management', rpc: ['', ''] });
      const res = await fetch(`${h.url}/manage/v1${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(status);
      ids.push(null);
    };
    await manage(
      { backend: 's', method: 'call_tool', capability_name: 's_echo', original_name: 'echo', ...ok },
      '/tools/call',
      { tool: 's_echo', arguments: { text: 'via management' } },
      200,
    );
    await manage(
      {
        backend: 's',
        method: 'call_tool',
        capability_name: 's_fail',
        original_name: 'fail',
        status: 'error',
        error_type: 'ToolError',
        error: /^managed failure$/,
      },
      '/tools/call',
      { tool: 's_fail', arguments: { message: 'managed failure' } },
      200,
    );
    await manage(
      {
        backend: '',
        method: 'call_tool',
        capability_name: 'no_such_tool',
        original_name: 'no_such_tool',
        status: 'error',
        error_type: 'ToolNotFoundError',
        error: /no_such_tool/,
      },
      '/tools/call',
      { tool: 'no_such_tool', arguments: {} },
      404,
    );
    await manage(
      { backend: 's', method: 'read_resource', capability_name: 'fixture://s/info', original_name: 'fixture://s/info', ...ok },
      '/resources/read',
      { uri: 'fixture://s/info' },
      200,
    );

    // The backend goes away in the middle of a call: the call fails and is audited against that backend.
    const down_ = { backend: 'down', method: 'call_tool' as const, status: 'error' as const, error: /./ };
    // A backend that is down but known answers "not ready" (BackendNotReadyError) once it is out of service.
    const DOWN_ERRORS = ['BackendCallError', 'BackendUnavailableError', 'BackendTimeoutError', 'BackendNotReadyError'];
    await op(b, 'sse', { ...down_, capability_name: 'down_slow', original_name: 'slow', error_type: DOWN_ERRORS }, async () => {
      const call = b.client.callTool({ name: 'down_slow', arguments: { steps: 1, delay_ms: 10_000 } });
      const failed = expect(call).rejects.toThrow();
      await waitFor(() => h.gateway.router.inFlightCount > 0, 'the call in flight at the backend');
      await down.stop();
      await failed;
    });
    // And a call once it is down. Whether the gateway has taken the backend out
    // of the registry yet is a race: either the backend fails the call, or the
    // name is unknown by now.
    const afterDown: Expected = {
      ...down_,
      transport: 'sse',
      capability_name: 'down_whoami',
      original_name: 'whoami',
      error_type: DOWN_ERRORS,
      rpc: ['tools/call', 'down_whoami'],
    };
    expected.push(afterDown);
    const err = await b.client.callTool({ name: 'down_whoami', arguments: {} }).then(
      () => null,
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(Error);
    if (/Unknown tool/.test(err!.message)) Object.assign(afterDown, { backend: '', original_name: 'down_whoami', error_type: 'ToolNotFoundError' });
    ids.push(b.idOf('tools/call', 'down_whoami'));

    await a.client.close();
    await b.client.close();
    // Graceful shutdown flushes the audit trail: no explicit flush here.
    await h.close();
    records = readRecords(file);
    auditLogLines = h.logs.map((l) => JSON.parse(l) as Record<string, any>).filter((l) => l.level === AUDIT_LEVEL);
  }, 60_000);

  afterAll(async () => {
    await down?.stop();
  });

  it('writes exactly one line per operation, in order, and none for list requests', () => {
    expect(records.map((r) => `${r.target.method} ${r.target.capability_name}`)).toEqual(expected.map((e) => `${e.method} ${e.capability_name}`));
  });

  it('every line is a valid audit record (section 2.8) with a unique UUID v4 event_id', () => {
    for (const r of records) {
      expect([...Value.Errors(AuditRecord, r)].map((e) => `${e.path}: ${e.message}`)).toEqual([]);
      expect(r.event_type).toBe('mcp_operation');
      expect(r.event_id).toMatch(UUID_V4);
      expect(new Date(r.timestamp).toISOString()).toBe(r.timestamp);
    }
    expect(new Set(records.map((r) => r.event_id)).size).toBe(records.length);
  });

  it('source: the session of the transport the call came in on (management calls: "management"), the client IP, no user_id without auth', () => {
    records.forEach((r, i) => {
      const e = expected[i];
      expect(r.source.session_id).toBe(sessions[e.transport]);
      expect(r.source.client_ip).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
      expect('user_id' in r.source).toBe(false);
    });
  });

  it('target: backend, method, exposed and original names', () => {
    records.forEach((r, i) => {
      const e = expected[i];
      expect(r.target).toEqual({ backend: e.backend, method: e.method, capability_name: e.capability_name, original_name: e.original_name });
    });
  });

  it('outcome: status, error and error_type for successes, tool errors, RPC errors, timeouts, unknown names and a down backend', () => {
    records.forEach((r, i) => {
      const e = expected[i];
      const label = `${e.method} ${e.capability_name}`;
      expect(r.outcome.status, label).toBe(e.status);
      if (e.status === 'success') {
        expect(r.outcome.error, label).toBeNull();
        expect(r.outcome.error_type, label).toBeNull();
      } else {
        expect(r.outcome.error, label).toMatch(e.error!);
        expect([e.error_type].flat(), label).toContain(r.outcome.error_type);
      }
      expect(typeof r.outcome.latency_ms).toBe('number');
      expect(r.outcome.latency_ms).toBeGreaterThanOrEqual(0);
    });
    const timeout = records.find((r) => r.target.capability_name === 's_slow')!;
    expect(timeout.outcome.latency_ms).toBeGreaterThanOrEqual(450);
    expect(timeout.outcome.latency_ms).toBeLessThan(1500);
  });

  it('metadata: transport and the JSON-RPC id the client sent (null for the management API), and the call id of POST /tools/call', () => {
    records.forEach((r, i) => {
      const { call_id, ...rest } = r.metadata as Record<string, unknown>;
      expect(rest).toEqual({ transport: expected[i].transport, jsonrpc_id: ids[i] });
      // The management API names each tool call, so its caller can find the record (GET /audit?call_id=).
      if (expected[i].transport === 'management' && r.target.method === 'call_tool') expect(call_id).toMatch(/^[0-9a-f-]{36}$/);
      else expect(call_id).toBeUndefined();
    });
  });

  it('mirrors each record on the logger at the audit level, even with the level at warn', () => {
    expect(auditLogLines.map((l) => l.audit.event_id)).toEqual(records.map((r) => r.event_id));
    expect(auditLogLines[0].msg).toMatch(/^mcp_operation call_tool s\/s_echo success \d+\.\d ms$/);
    const failed = auditLogLines.find((l) => l.audit.target.capability_name === 's_fail')!;
    expect(failed.msg).toMatch(/^mcp_operation call_tool s\/s_fail error \d+\.\d ms ToolError: nope$/);
  });
});

describe('audit file rotation and flush on shutdown', () => {
  const MAX_SIZE_MB = 0.002; // ~2 KB: a handful of records per file
  const maxBytes = MAX_SIZE_MB * 1024 * 1024;

  /** A gateway with one stdio backend, `n` concurrent calls, then an immediate graceful shutdown. */
  async function burst(audit: Record<string, unknown>, n: number, logLevel = 'debug'): Promise<{ dir: string; logs: string[] }> {
    const dir = mkdtempSync(join(tmpdir(), 'gw-audit-rot-'));
    const s = fixtureCommand(['--name', 's']);
    const h = await startGateway(
      {
        health: { interval_s: 3600 },
        backends: { s: { type: 'stdio', command: s.command, args: s.args } },
        audit: { file: join(dir, 'audit.jsonl'), max_size_mb: MAX_SIZE_MB, ...audit },
      },
      { logLevel },
    );
    const client = await h.connect();
    await Promise.all(Array.from({ length: n }, (_, i) => client.callTool({ name: 's_echo', arguments: { text: `call ${i}` } })));
    // No flush: whatever is still queued must be written by the shutdown.
    await h.close();
    return { dir, logs: h.logs };
  }

  const files = (dir: string) => readdirSync(dir).filter((f) => f.startsWith('audit.jsonl'));
  const backupIndexes = (dir: string) =>
    files(dir)
      .filter((f) => f !== 'audit.jsonl')
      .map((f) => Number(/^audit\.jsonl\.(\d+)$/.exec(f)?.[1]))
      .sort((x, y) => x - y);

  it('with enough backups: file, file.1 … file.N without gaps, each within max size, no record lost or repeated', async () => {
    const calls = 40;
    const { dir } = await burst({ backup_count: 100 }, calls);
    const indexes = backupIndexes(dir);
    expect(files(dir)).toContain('audit.jsonl');
    expect(indexes.length).toBeGreaterThanOrEqual(4);
    expect(indexes).toEqual(indexes.map((_, i) => i + 1));
    const all: AuditRecord[] = [];
    // Oldest first: the highest suffix holds the earliest records.
    for (const name of [...indexes.reverse().map((i) => `audit.jsonl.${i}`), 'audit.jsonl']) {
      expect(statSync(join(dir, name)).size).toBeLessThanOrEqual(maxBytes);
      all.push(...readRecords(join(dir, name)));
    }
    expect(all).toHaveLength(calls);
    expect(new Set(all.map((r) => r.event_id)).size).toBe(calls);
    for (const r of all) expect(Value.Check(AuditRecord, r)).toBe(true);
    const times = all.map((r) => r.timestamp);
    expect(times).toEqual([...times].sort());
  });

  it('keeps at most backup_count rotated files, dropping the oldest (and audit log lines survive level fatal)', async () => {
    const { dir, logs } = await burst({ backup_count: 2, console: true }, 40, 'fatal');
    // Every operation still has its audit log line; nothing else got through.
    const levels = logs.map((l) => (JSON.parse(l) as { level: number }).level);
    expect(levels.filter((l) => l === AUDIT_LEVEL)).toHaveLength(40);
    expect(levels.every((l) => l >= AUDIT_LEVEL)).toBe(true);
    expect(files(dir).sort()).toEqual(['audit.jsonl', 'audit.jsonl.1', 'audit.jsonl.2']);
    const newest = readRecords(join(dir, 'audit.jsonl'));
    const older = readRecords(join(dir, 'audit.jsonl.1'));
    const oldest = readRecords(join(dir, 'audit.jsonl.2'));
    expect(newest.length).toBeGreaterThan(0);
    expect(older.at(-1)!.timestamp <= newest[0].timestamp).toBe(true);
    expect(oldest.at(-1)!.timestamp <= older[0].timestamp).toBe(true);
    // Rotation happened well beyond two backups' worth: records were dropped, files were not kept.
    expect(newest.length + older.length + oldest.length).toBeLessThan(40);
  });
});

describe('audit on the console', () => {
  it('by default the records go to the file only: no audit line on the console at info level', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-audit-quiet-'));
    const s = fixtureCommand(['--name', 's']);
    const h = await startGateway(
      { health: { interval_s: 3600 }, backends: { s: { type: 'stdio', command: s.command, args: s.args } }, audit: { file: join(dir, 'audit.jsonl') } },
      { logLevel: 'info' },
    );
    const client = await h.connect();
    for (let i = 0; i < 5; i++) await client.callTool({ name: 's_echo', arguments: { text: `q${i}` } });
    await h.close();
    expect(readRecords(join(dir, 'audit.jsonl'))).toHaveLength(5);
    expect(h.logs.filter((l) => (JSON.parse(l) as { level: number }).level === AUDIT_LEVEL)).toEqual([]);
  });
});

describe('audit disabled', () => {
  it('audit.enabled: false writes no file and no audit log line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-audit-off-'));
    const s = fixtureCommand(['--name', 's']);
    const h = await startGateway({
      health: { interval_s: 3600 },
      backends: { s: { type: 'stdio', command: s.command, args: s.args } },
      audit: { enabled: false, file: join(dir, 'audit.jsonl') },
    });
    const client = await h.connect();
    await client.callTool({ name: 's_echo', arguments: { text: 'x' } });
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toThrow();
    await h.close();
    expect(existsSync(join(dir, 'audit.jsonl'))).toBe(false);
    expect(h.logs.filter((l) => (JSON.parse(l) as { level: number }).level === AUDIT_LEVEL)).toEqual([]);
  });
});
