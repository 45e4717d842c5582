/**
 * Reading the audit trail back (GET /manage/v1/audit): the newest records
 * that pass a filter, from the audit file and its rotated copies
 * (`file`, `file.1` … `file.<backup_count>`), read backwards from the end so
 * the newest come first and a query for the last few records reads only the
 * last few kilobytes. Records are appended in time order, so a `since`
 * bound stops the scan as soon as it is passed. A scan reads at most
 * MAX_SCAN_BYTES; an answer cut short says so (`complete: false`).
 */
import { open } from 'node:fs/promises';
import type { AuditRecord, AuditStatus } from '../../../schemas/audit-record.js';

/** What the query needs of the audit log (AuditLog is one). */
export interface AuditTrail {
  readonly enabled: boolean;
  /** The current file; the rotated ones are `<filePath>.1` … `<filePath>.<backupCount>`. */
  readonly filePath: string;
  readonly backupCount: number;
  /** Writes what was recorded so far (a call made a moment ago is then found). */
  flush(): Promise<void>;
}

export interface AuditFilter {
  /** `source.user_id`. */
  user?: string;
  /** `target.capability_name`: the exposed name of the tool (prompt, resource URI). */
  tool?: string;
  backend?: string;
  outcome?: AuditStatus;
  /** `metadata.call_id`: the id of a call made through POST /tools/call. */
  callId?: string;
  /** Strictly after. */
  since?: Date;
  /** At or before. */
  until?: Date;
  limit: number;
}

export interface AuditAnswer {
  /** Oldest first; the newest `limit` that pass. */
  records: AuditRecord[];
  /** false when the scan stopped at MAX_SCAN_BYTES before the trail (or `since`) was exhausted. */
  complete: boolean;
}

export const MAX_SCAN_BYTES = 64 * 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;

export async function queryAudit(trail: AuditTrail, filter: AuditFilter, maxScanBytes = MAX_SCAN_BYTES): Promise<AuditAnswer> {
  if (!trail.enabled) return { records: [], complete: true };
  await trail.flush();
  const found: AuditRecord[] = [];
  const sinceMs = filter.since?.getTime();
  const untilMs = filter.until?.getTime();
  let budget = maxScanBytes;
  const files = [trail.filePath, ...Array.from({ length: trail.backupCount }, (_, i) => `${trail.filePath}.${i + 1}`)];
  for (const file of files) {
    const outcome = await readBackwards(file, budget, (line) => {
      const record = parse(line);
      if (!record) return 'more';
      const at = Date.parse(record.timestamp);
      if (sinceMs !== undefined && at <= sinceMs) return 'done';
      if ((untilMs === undefined || at <= untilMs) && matches(record, filter)) found.push(record);
      return found.length >= filter.limit ? 'done' : 'more';
    });
    budget -= outcome.bytes;
    if (outcome.stopped) return { records: found.reverse(), complete: true };
    if (budget <= 0) return { records: found.reverse(), complete: false };
  }
  return { records: found.reverse(), complete: true };
}

function matches(r: AuditRecord, f: AuditFilter): boolean {
  return (
    (f.user === undefined || r.source.user_id === f.user) &&
    (f.tool === undefined || r.target.capability_name === f.tool) &&
    (f.backend === undefined || r.target.backend === f.backend) &&
    (f.outcome === undefined || r.outcome.status === f.outcome) &&
    (f.callId === undefined || (r.metadata as Record<string, unknown>).call_id === f.callId)
  );
}

/** A line that is not a record (cut by a crash, edited by hand) is passed over, not fatal. */
function parse(line: string): AuditRecord | undefined {
  try {
    const value = JSON.parse(line) as AuditRecord;
    return typeof value?.timestamp === 'string' && value.source && value.target && value.outcome && value.metadata ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Hands the file's lines to `visit`, last first, until it says `done` or
 * `maxBytes` have been read. A missing file has no lines.
 */
async function readBackwards(path: string, maxBytes: number, visit: (line: string) => 'more' | 'done'): Promise<{ bytes: number; stopped: boolean }> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { bytes: 0, stopped: false };
    throw err;
  }
  try {
    let position = (await handle.stat()).size;
    let bytes = 0;
    // Bytes of a line whose start is in a chunk not read yet.
    let rest = Buffer.alloc(0);
    while (position > 0 && bytes < maxBytes) {
      const length = Math.min(CHUNK_BYTES, position);
      position -= length;
      const chunk = Buffer.alloc(length);
      await handle.read(chunk, 0, length, position);
      bytes += length;
      let buffer = Buffer.concat([chunk, rest]);
      // Split on raw newline bytes: a multi-byte character never contains 0x0a.
      let end = buffer.length;
      for (let i = buffer.length - 1; i >= 0; i--) {
        if (buffer[i] !== 0x0a) continue;
        const line = buffer.subarray(i + 1, end).toString('utf8');
        end = i;
        if (line.length > 0 && visit(line) === 'done') return { bytes, stopped: true };
      }
      buffer = buffer.subarray(0, end);
      rest = Buffer.from(buffer);
    }
    if (position === 0 && rest.length > 0 && visit(rest.toString('utf8')) === 'done') return { bytes, stopped: true };
    return { bytes, stopped: false };
  } finally {
    await handle.close();
  }
}
