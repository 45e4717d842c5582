/**
 * Reading the audit trail back: newest records across the file and its
 * rotated copies, filters, `since` stopping the scan, lines cut across read
 * chunks, lines that are not records, and the scan budget.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { queryAudit, type AuditTrail } from '../../../../runtime/observability/audit/audit-query.js';
import type { AuditRecord } from '../../../../schemas/audit-record.js';

const record = (
  i: number,
  over: { user?: string; tool?: string; status?: 'success' | 'error' | 'denied'; callId?: string; pad?: number } = {},
): AuditRecord => ({
  timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
  event_type: 'mcp_operation',
  event_id: randomUUID(),
  source: { session_id: 's', client_ip: '127.0.0.1', ...(over.user ? { user_id: over.user, roles: [] } : {}) },
  target: { backend: 'b', method: 'call_tool', capability_name: over.tool ?? 'echo', original_name: 'echo' },
  outcome: { status: over.status ?? 'success', latency_ms: 1, error: null, error_type: null },
  metadata: {
    transport: 'streamable-http',
    jsonrpc_id: i,
    ...(over.callId ? { call_id: over.callId } : {}),
    ...(over.pad ? { pad: 'x'.repeat(over.pad) } : {}),
  },
});

function trail(files: AuditRecord[][], extraLines: string[] = []): AuditTrail {
  const dir = mkdtempSync(join(tmpdir(), 'audit-query-'));
  const filePath = join(dir, 'audit.jsonl');
  // files[0] is the oldest rotated copy, the last one the current file.
  files.forEach((records, i) => {
    const name = i === files.length - 1 ? filePath : `${filePath}.${files.length - 1 - i}`;
    writeFileSync(name, [...records.map((r) => JSON.stringify(r)), ...(i === files.length - 1 ? extraLines : [])].map((l) => `${l}\n`).join(''));
  });
  return { enabled: true, filePath, backupCount: files.length - 1, flush: async () => undefined };
}

const seconds = (a: { records: AuditRecord[] }) => a.records.map((r) => new Date(r.timestamp).getUTCSeconds());

describe('queryAudit', () => {
  it('keeps the newest that pass, oldest first, across rotated files', async () => {
    const t = trail([
      [record(1), record(2)],
      [record(3, { user: 'alice' }), record(4)],
      [record(5, { user: 'alice' }), record(6)],
    ]);
    expect(seconds(await queryAudit(t, { limit: 3 }))).toEqual([4, 5, 6]);
    expect(seconds(await queryAudit(t, { limit: 100 }))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(seconds(await queryAudit(t, { limit: 100, user: 'alice' }))).toEqual([3, 5]);
  });

  it('filters by tool, outcome, call id and time', async () => {
    const t = trail([[record(1, { tool: 'a' }), record(2, { status: 'error' }), record(3, { callId: 'c-1' }), record(4, { status: 'denied', tool: 'a' })]]);
    expect(seconds(await queryAudit(t, { limit: 10, tool: 'a' }))).toEqual([1, 4]);
    expect(seconds(await queryAudit(t, { limit: 10, outcome: 'error' }))).toEqual([2]);
    expect(seconds(await queryAudit(t, { limit: 10, callId: 'c-1' }))).toEqual([3]);
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
    expect(seconds(await queryAudit(t, { limit: 10, since: at(2), until: at(3) }))).toEqual([3]);
  });

  it('reads lines cut across read chunks whole, and passes over lines that are not records', async () => {
    const big = Array.from({ length: 40 }, (_, i) => record(i % 60, { pad: 5000 + i }));
    const t = trail([big], ['{"cut":', 'not json']);
    const all = await queryAudit(t, { limit: 1000 });
    expect(all.records).toHaveLength(40);
    expect(all.records.map((r) => (r.metadata as unknown as { pad: string }).pad.length)).toEqual(big.map((_, i) => 5000 + i));
  });

  it('stops at `since` without reading older files, and says when the budget cut the scan short', async () => {
    const t = trail([[record(1), record(2)], [record(3)]]);
    expect(seconds(await queryAudit(t, { limit: 10, since: new Date(Date.UTC(2026, 0, 1, 0, 0, 2)) }))).toEqual([3]);
    const cut = await queryAudit(t, { limit: 10 }, 100);
    expect(cut.complete).toBe(false);
    expect((await queryAudit(t, { limit: 10 })).complete).toBe(true);
  });

  it('answers nothing when the trail is off or not written yet', async () => {
    expect(await queryAudit({ enabled: false, filePath: '/nonexistent', backupCount: 0, flush: async () => undefined }, { limit: 5 })).toEqual({
      records: [],
      complete: true,
    });
    expect(
      await queryAudit({ enabled: true, filePath: join(tmpdir(), `none-${randomUUID()}.jsonl`), backupCount: 3, flush: async () => undefined }, { limit: 5 }),
    ).toEqual({
      records: [],
      complete: true,
    });
  });
});
