/**
 * The audit trail: one JSON line per MCP operation, appended to `audit.file`
 * with size-based rotation, and mirrored on the logger at the `audit` level.
 *
 * record() sits on the request path, so it does no work there: it keeps the
 * record, and once the current event-loop turn has sent its answers
 * (setImmediate) the records are serialised, mirrored on the logger and
 * queued in memory. A single background writer drains the queue in batches.
 * Nothing is dropped: when a write fails the unwritten lines stay queued and
 * are retried; flush() and close() take the kept records first.
 */
import type { AuditRecord } from '../../../schemas/audit-record.js';
import type { Logger } from '../logging/logger.js';
import type { Redactor } from '../logging/redactor.js';
import { RotatingFile, RotatingFileWriteError } from './rotating-file.js';
import type { AuditTrail } from './audit-query.js';

export interface AuditLogOptions {
  enabled: boolean;
  file: string;
  /** Fractions are allowed (tests use e.g. 0.001). */
  maxSizeMb: number;
  backupCount: number;
  logger?: Logger;
  /** Applied to each line before it is written (the gateway's own). */
  redactor: Redactor;
}

const BYTES_PER_MB = 1024 * 1024;
/** Bounds the size of one write so a large backlog does not become one huge string. */
const MAX_BATCH_LINES = 10_000;
const RETRY_DELAY_MS = 1_000;
/** How long records may gather in memory before they are written (see scheduleWriter). */
const BATCH_WINDOW_MS = 20;

export class AuditLog implements AuditTrail {
  readonly enabled: boolean;
  readonly backupCount: number;
  private readonly file: RotatingFile;
  private readonly logger?: Logger;
  private readonly redactor: Redactor;

  private queue: string[] = [];
  /** Records made this turn, not yet serialised (see record()). */
  private pending: AuditRecord[] = [];
  private pendingImmediate: NodeJS.Immediate | null = null;
  /** Lines accepted by record() and lines known to be in a file; flush() waits for the gap to close. */
  private recorded = 0;
  private written = 0;
  private writer: Promise<void> | null = null;
  private lastError: unknown = undefined;
  private retryTimer: NodeJS.Timeout | null = null;
  private batchTimer: NodeJS.Timeout | null = null;
  private closing: Promise<void> | null = null;

  constructor(opts: AuditLogOptions) {
    this.enabled = opts.enabled;
    this.backupCount = opts.backupCount;
    this.logger = opts.logger;
    this.redactor = opts.redactor;
    this.file = new RotatingFile({
      path: opts.file,
      maxBytes: opts.maxSizeMb * BYTES_PER_MB,
      backupCount: opts.backupCount,
    });
  }

  /**
   * The record is made when the operation ends, just before its answer is
   * written: serialising it twice (file line, logger line) and redacting both
   * would delay that answer, so it waits for the end of the turn.
   */
  record(r: AuditRecord): void {
    if (!this.enabled) return;
    if (this.closing !== null) {
      this.take(r);
      return;
    }
    this.pending.push(r);
    this.pendingImmediate ??= setImmediate(() => this.takePending());
  }

  private takePending(): void {
    if (this.pendingImmediate !== null) clearImmediate(this.pendingImmediate);
    this.pendingImmediate = null;
    const records = this.pending;
    this.pending = [];
    for (const r of records) this.take(r);
  }

  private take(r: AuditRecord): void {
    this.logger?.audit({ audit: r }, auditMessage(r));
    if (this.closing !== null) {
      // The file is closed; the logger line above is the only trace left.
      this.logger?.error({ event_id: r.event_id }, 'audit record received after the audit log was closed');
      return;
    }
    this.queue.push(`${this.redactor.redact(JSON.stringify(r))}\n`);
    this.recorded++;
    // While a retry is pending the disk is known to be failing; let the timer
    // (or an explicit flush) try again rather than every new record.
    if (this.retryTimer === null) this.scheduleWriter();
  }

  get filePath(): string {
    return this.file.path;
  }

  /** Resolves once every record made before the call is in the file; rejects if the disk write keeps failing. */
  async flush(): Promise<void> {
    this.takePending();
    const target = this.recorded;
    while (this.written < target) {
      await this.startWriter();
      if (this.written < target && this.lastError !== undefined) throw this.lastError;
    }
  }

  /** Flushes, then closes the file. Later records only reach the logger. */
  close(): Promise<void> {
    // Records kept this turn belong in the file, not after its close.
    this.takePending();
    this.closing ??= this.flushAndClose();
    return this.closing;
  }

  private async flushAndClose(): Promise<void> {
    try {
      await this.flush();
    } finally {
      this.clearRetry();
      await this.writer;
      await this.file.close();
    }
  }

  /**
   * Under load, writing each tick's few records costs a thread-pool round
   * trip per handful of lines; gathering them for BATCH_WINDOW_MS turns that
   * into one write per window. flush() and close() do not wait for the window.
   */
  private scheduleWriter(): void {
    if (this.batchTimer !== null || this.writer !== null) return;
    this.batchTimer = setTimeout(() => {
      this.batchTimer = null;
      void this.startWriter();
    }, BATCH_WINDOW_MS);
    this.batchTimer.unref();
  }

  private startWriter(): Promise<void> {
    if (this.batchTimer !== null) {
      clearTimeout(this.batchTimer);
      this.batchTimer = null;
    }
    this.writer ??= this.drain().finally(() => {
      this.writer = null;
    });
    return this.writer;
  }

  /** Never rejects: failures are kept in `lastError` and retried later. */
  private async drain(): Promise<void> {
    // Let the rest of the current tick's records join the first batch.
    await Promise.resolve();
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH_LINES);
      try {
        await this.file.appendLines(batch);
        this.written += batch.length;
        this.lastError = undefined;
        this.clearRetry();
      } catch (err) {
        const done = err instanceof RotatingFileWriteError ? err.linesWritten : 0;
        this.written += done;
        this.queue = batch.slice(done).concat(this.queue);
        this.lastError = err;
        this.logger?.error({ err, pending: this.queue.length }, 'audit log write failed; records kept in memory and retried');
        this.scheduleRetry();
        return;
      }
    }
  }

  private scheduleRetry(): void {
    if (this.retryTimer !== null || this.closing !== null) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.startWriter();
    }, RETRY_DELAY_MS);
    // A pending retry must not keep the process alive on its own.
    this.retryTimer.unref();
  }

  private clearRetry(): void {
    if (this.retryTimer === null) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }
}

/**
 * One readable line: `mcp_operation call_tool github/github_search error 12.3 ms BackendTimeoutError: …`.
 * An unknown name has no backend, so the target is then the name alone.
 */
function auditMessage(r: AuditRecord): string {
  const target = r.target.backend ? `${r.target.backend}/${r.target.capability_name}` : r.target.capability_name;
  const failure = r.outcome.status === 'error' ? ` ${r.outcome.error_type ?? 'Error'}: ${r.outcome.error ?? ''}` : '';
  return `mcp_operation ${r.target.method} ${target} ${r.outcome.status} ${r.outcome.latency_ms.toFixed(1)} ms${failure}`;
}
