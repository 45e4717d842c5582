import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { Value } from '@sinclair/typebox/value';
import { afterAll, describe, expect, it } from 'vitest';
import { AuditLog, type AuditLogOptions } from '../../../../runtime/observability/audit/audit-log.js';
import { RotatingFile } from '../../../../runtime/observability/audit/rotating-file.js';
import { TOOL_ERROR_TYPE, buildAuditRecord, type AuditRecordInput } from '../../../../runtime/observability/audit/audit-record-builder.js';
import { createLogger } from '../../../../runtime/observability/logging/logger.js';
import { REDACTED, Redactor } from '../../../../runtime/observability/logging/redactor.js';
import { AuditRecord } from '../../../../schemas/audit-record.js';
import { BackendTimeoutError, GatewayError, ToolNotFoundError } from '../../../../schemas/errors.js';

const root = mkdtempSync(join(tmpdir(), 'audit-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let dirCounter = 0;
function freshFile(): string {
  return join(root, `case-${dirCounter++}`, 'logs', 'audit.jsonl');
}

function input(overrides: Partial<AuditRecordInput> = {}): AuditRecordInput {
  return {
    sessionId: 'session-1',
    clientIp: '127.0.0.1',
    backend: 'github',
    method: 'call_tool',
    capabilityName: 'github_create_issue',
    originalName: 'create_issue',
    startedAt: performance.now(),
    metadata: { transport: 'streamable_http', jsonrpc_id: 1 },
    ...overrides,
  };
}

function record(i: number, overrides: Partial<AuditRecordInput> = {}): AuditRecord {
  return buildAuditRecord(input({ metadata: { transport: 'streamable_http', jsonrpc_id: i }, ...overrides }));
}

function auditLog(file: string, opts: Partial<AuditLogOptions> = {}): AuditLog {
  return new AuditLog({ enabled: true, file, maxSizeMb: 100, backupCount: 5, redactor: new Redactor(), ...opts });
}

function readLines(file: string): AuditRecord[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as AuditRecord);
}

/** Every line of the file and its rotated copies, oldest first. */
function readAll(file: string, backupCount: number): AuditRecord[] {
  const out: AuditRecord[] = [];
  for (let i = backupCount; i >= 1; i--) out.push(...readLines(`${file}.${i}`));
  out.push(...readLines(file));
  return out;
}

describe('buildAuditRecord', () => {
  it('builds a valid success record with every field typed', () => {
    const r = buildAuditRecord(input({ userId: 'alice', roles: ['dev', 'ops'] }));
    expect(Value.Check(AuditRecord, r)).toBe(true);
    expect(r.event_type).toBe('mcp_operation');
    expect(r.event_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Date(r.timestamp).toISOString()).toBe(r.timestamp);
    expect(r.timestamp.endsWith('Z')).toBe(true);
    expect(r.source).toEqual({ session_id: 'session-1', client_ip: '127.0.0.1', user_id: 'alice', roles: ['dev', 'ops'] });
    expect('policy_index' in r.outcome).toBe(false);
    expect(r.target).toEqual({
      backend: 'github',
      method: 'call_tool',
      capability_name: 'github_create_issue',
      original_name: 'create_issue',
    });
    expect(r.outcome.status).toBe('success');
    expect(r.outcome.error).toBeNull();
    expect(r.outcome.error_type).toBeNull();
    expect(typeof r.outcome.latency_ms).toBe('number');
    expect(r.outcome.latency_ms).toBeGreaterThanOrEqual(0);
    expect(r.metadata).toEqual({ transport: 'streamable_http', jsonrpc_id: 1 });
  });

  it('omits user_id and roles when the user is unknown', () => {
    const r = buildAuditRecord(input());
    expect('user_id' in r.source).toBe(false);
    expect('roles' in r.source).toBe(false);
    expect(Value.Check(AuditRecord, r)).toBe(true);
  });

  it('records a refusal of the policies as denied, naming the policy (or the default)', () => {
    const error = new ToolNotFoundError('github_create_issue');
    const byPolicy = buildAuditRecord(input({ userId: 'bob', roles: [], error, denial: { allowed: false, policyIndex: 1, effect: 'deny' } }));
    expect(Value.Check(AuditRecord, byPolicy)).toBe(true);
    expect(byPolicy.outcome).toMatchObject({ status: 'denied', policy_index: 1, error: 'denied by policy 1 (deny)', error_type: 'AccessDenied' });
    const byDefault = buildAuditRecord(input({ userId: 'bob', roles: [], error, denial: { allowed: false, policyIndex: null, effect: 'deny' } }));
    expect(Value.Check(AuditRecord, byDefault)).toBe(true);
    expect(byDefault.outcome).toMatchObject({ status: 'denied', policy_index: null, error: 'denied by default_effect (deny)' });
  });

  it('measures latency from startedAt as a float', () => {
    const r = buildAuditRecord(input({ startedAt: performance.now() - 12.5 }));
    expect(r.outcome.latency_ms).toBeGreaterThanOrEqual(12.5);
    expect(Number.isInteger(r.outcome.latency_ms)).toBe(false);
  });

  it('names the error class of thrown errors', () => {
    const cases: [unknown, string, string][] = [
      [new BackendTimeoutError('github', 5000), 'BackendTimeoutError', "Backend 'github' did not answer within 5000 ms"],
      [new GatewayError('internal_error', 'oops'), 'GatewayError', 'oops'],
      [new McpError(ErrorCode.InvalidParams, 'bad args'), 'McpError', 'MCP error -32602: bad args'],
      [new TypeError('not a function'), 'TypeError', 'not a function'],
      ['a thrown string', 'UnknownError', 'a thrown string'],
    ];
    for (const [error, type, message] of cases) {
      const r = buildAuditRecord(input({ error }));
      expect(r.outcome).toMatchObject({ status: 'error', error_type: type, error: message });
      expect(Value.Check(AuditRecord, r)).toBe(true);
    }
  });

  it('records a tool that returned isError as a ToolError', () => {
    const r = buildAuditRecord(input({ toolError: 'repository not found' }));
    expect(r.outcome).toMatchObject({ status: 'error', error: 'repository not found', error_type: TOOL_ERROR_TYPE });
    expect(TOOL_ERROR_TYPE).toBe('ToolError');
  });

  it('rejects malformed records in the schema', () => {
    const good = buildAuditRecord(input());
    expect(Value.Check(AuditRecord, { ...good, event_type: 'other' })).toBe(false);
    expect(Value.Check(AuditRecord, { ...good, event_id: 'not-a-uuid' })).toBe(false);
    expect(Value.Check(AuditRecord, { ...good, timestamp: '2024-01-01 10:00:00' })).toBe(false);
    expect(Value.Check(AuditRecord, { ...good, target: { ...good.target, method: 'list_tools' } })).toBe(false);
    expect(Value.Check(AuditRecord, { ...good, metadata: { transport: 'sse' } })).toBe(false);
    expect(Value.Check(AuditRecord, { ...good, metadata: { transport: 'sse', jsonrpc_id: 'a', extra: true } })).toBe(true);
  });
});

describe('AuditLog', () => {
  it('writes exactly N valid lines for N records after flush, creating the directory', async () => {
    const file = freshFile();
    const log = auditLog(file);
    const records = Array.from({ length: 50 }, (_, i) => record(i, i % 3 === 0 ? { error: new Error(`e${i}`) } : {}));
    for (const r of records) log.record(r);
    await log.flush();
    const lines = readLines(file);
    expect(lines).toHaveLength(50);
    expect(lines).toEqual(records);
    for (const line of lines) expect(Value.Check(AuditRecord, line)).toBe(true);
    await log.close();
  });

  it('does not touch the disk inside record()', async () => {
    const file = freshFile();
    const log = auditLog(file);
    log.record(record(1));
    expect(existsSync(file)).toBe(false);
    await log.flush();
    expect(readLines(file)).toHaveLength(1);
    await log.close();
  });

  it('flush() covers records made while a write is in progress', async () => {
    const file = freshFile();
    const log = auditLog(file);
    log.record(record(1));
    const first = log.flush();
    log.record(record(2));
    await first;
    await log.flush();
    expect(readLines(file).map((r) => r.metadata.jsonrpc_id)).toEqual([1, 2]);
    await log.close();
  });

  it('rotates into file.1 .. file.N and drops the oldest', async () => {
    const file = freshFile();
    const maxSizeMb = 0.001; // ~1 KB: a handful of records per file
    const backupCount = 3;
    const log = auditLog(file, { maxSizeMb, backupCount });
    const records = Array.from({ length: 100 }, (_, i) => record(i));
    for (const [i, r] of records.entries()) {
      log.record(r);
      if (i % 7 === 0) await log.flush(); // mix batch sizes
    }
    await log.close();

    const names = readdirSync(join(file, '..')).sort();
    expect(names).toEqual(['audit.jsonl', 'audit.jsonl.1', 'audit.jsonl.2', 'audit.jsonl.3']);
    for (const name of names) {
      expect(statSync(join(file, '..', name)).size).toBeLessThanOrEqual(maxSizeMb * 1024 * 1024);
    }
    // What is left is the newest records, contiguous and in order; the oldest were dropped.
    const kept = readAll(file, backupCount).map((r) => r.metadata.jsonrpc_id);
    expect(kept.length).toBeLessThan(records.length);
    expect(kept).toEqual(records.slice(records.length - kept.length).map((r) => r.metadata.jsonrpc_id));
    // The oldest kept file (.3) is full-sized history, not a stub.
    expect(readLines(`${file}.${backupCount}`).length).toBeGreaterThan(0);
  });

  it('loses no record across rotations when backup_count is large enough', async () => {
    const file = freshFile();
    const backupCount = 1000;
    const log = auditLog(file, { maxSizeMb: 0.004, backupCount });
    const records = Array.from({ length: 300 }, (_, i) => record(i));
    for (const r of records) log.record(r);
    await log.flush();
    const all = readAll(file, backupCount);
    expect(all).toHaveLength(records.length);
    expect(all.map((r) => r.event_id)).toEqual(records.map((r) => r.event_id));
    expect(existsSync(`${file}.10`)).toBe(true);
    await log.close();
  });

  it('with backup_count 0 restarts the file instead of keeping backups', async () => {
    const file = freshFile();
    const log = auditLog(file, { maxSizeMb: 0.001, backupCount: 0 });
    const records = Array.from({ length: 40 }, (_, i) => record(i));
    for (const r of records) log.record(r);
    await log.close();
    expect(readdirSync(join(file, '..'))).toEqual(['audit.jsonl']);
    const kept = readLines(file).map((r) => r.metadata.jsonrpc_id);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.at(-1)).toBe(39);
  });

  it('counts an existing file toward max size when reopened', async () => {
    const file = freshFile();
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, 'x'.repeat(1000) + '\n');
    const log = auditLog(file, { maxSizeMb: 0.001, backupCount: 2 });
    log.record(record(1));
    await log.close();
    expect(readFileSync(`${file}.1`, 'utf8')).toBe('x'.repeat(1000) + '\n');
    expect(readLines(file)).toHaveLength(1);
  });

  it('close() flushes pending records and later records only reach the logger', async () => {
    const file = freshFile();
    const chunks: string[] = [];
    const logger = createLogger({ level: 'warn', redactor: new Redactor(), destination: { write: (s: string) => void chunks.push(s) } });
    const log = auditLog(file, { logger });
    for (let i = 0; i < 10; i++) log.record(record(i));
    await log.close();
    expect(readLines(file)).toHaveLength(10);
    await log.close(); // idempotent
    log.record(record(99));
    await log.flush();
    expect(readLines(file)).toHaveLength(10);
    const logged = chunks
      .join('')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { level: number });
    expect(logged.filter((l) => l.level === 45)).toHaveLength(11);
  });

  it('mirrors each record on the logger at the audit level, visible at level warn', async () => {
    const chunks: string[] = [];
    const logger = createLogger({ level: 'warn', redactor: new Redactor(), destination: { write: (s: string) => void chunks.push(s) } });
    const log = auditLog(freshFile(), { logger });
    const r = record(7);
    log.record(r);
    await log.close();
    const line = JSON.parse(chunks.join('')) as { level: number; msg: string; audit: AuditRecord };
    expect(line.level).toBe(45);
    expect(line.audit).toEqual(r);
    expect(line.msg).toContain('mcp_operation');
  });

  it('redacts secrets in the audit file', async () => {
    const file = freshFile();
    const redactor = new Redactor();
    const secret = 'ghp_abcdefghijklmnop"quoted';
    redactor.register(secret);
    const log = auditLog(file, { redactor });
    log.record(record(1, { error: new Error(`401 for token ${secret}`) }));
    await log.close();
    const content = readFileSync(file, 'utf8');
    expect(content).not.toContain('ghp_abcdefghijklmnop');
    expect(readLines(file)[0].outcome.error).toBe(`401 for token ${REDACTED}`);
  });

  it('keeps records in memory when the disk write fails and writes them once it works', async () => {
    const file = freshFile();
    mkdirSync(file, { recursive: true }); // a directory where the file should be: open() fails
    const log = auditLog(file);
    const records = Array.from({ length: 5 }, (_, i) => record(i));
    for (const r of records) log.record(r);
    await expect(log.flush()).rejects.toThrow();
    rmSync(file, { recursive: true });
    await log.flush();
    expect(readLines(file)).toEqual(records);
    await log.close();
  });

  it('does nothing when disabled', async () => {
    const file = freshFile();
    const chunks: string[] = [];
    const logger = createLogger({ level: 'trace', redactor: new Redactor(), destination: { write: (s: string) => void chunks.push(s) } });
    const log = auditLog(file, { enabled: false, logger });
    log.record(record(1));
    await log.flush();
    await log.close();
    expect(existsSync(join(file, '..'))).toBe(false);
    expect(chunks).toEqual([]);
  });
});

describe('RotatingFile', () => {
  it('shifts backups only up to the first gap and never splits a line', async () => {
    const file = freshFile();
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, 'current\n');
    writeFileSync(`${file}.1`, 'one\n');
    writeFileSync(`${file}.3`, 'three\n');
    const rf = new RotatingFile({ path: file, maxBytes: 10, backupCount: 3 });
    await rf.appendLines(['a line longer than ten bytes\n']);
    await rf.close();
    expect(readFileSync(file, 'utf8')).toBe('a line longer than ten bytes\n');
    expect(readFileSync(`${file}.1`, 'utf8')).toBe('current\n');
    expect(readFileSync(`${file}.2`, 'utf8')).toBe('one\n');
    expect(readFileSync(`${file}.3`, 'utf8')).toBe('three\n');
  });
});
