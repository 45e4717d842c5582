/**
 * A backend's stderr lines, for its log page. The management API has no
 * route for them; a gateway logs each line (at debug level: `-vv` or
 * `--log-level debug`) with `backend` and `stream: "stderr"`, so for a local
 * detached session they are read from the tail of its JSON log file: the
 * lines of its current run only (session-run.ts), by the pid every JSON log
 * line carries.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { SessionRun } from './session-run.js';

/** How much of the file's end is read: enough for the recent lines, bounded for a large log. */
const TAIL_BYTES = 512 * 1024;

export interface StderrLine {
  time?: number;
  text: string;
}

/** The newest `max` stderr lines of `backend` that `run` logged, oldest first; throws when the log file cannot be read. */
export function readBackendStderr(run: SessionRun, backend: string, max = 200): StderrLine[] {
  const lines: StderrLine[] = [];
  for (const raw of tail(run.logFile).split('\n')) {
    if (!raw.startsWith('{')) continue;
    let rec: { pid?: unknown; backend?: unknown; stream?: unknown; msg?: unknown; time?: unknown };
    try {
      rec = JSON.parse(raw) as typeof rec;
    } catch {
      continue; // the first line of the tail may be cut
    }
    if (rec.pid !== run.pid || rec.backend !== backend || rec.stream !== 'stderr' || typeof rec.msg !== 'string') continue;
    lines.push({ text: rec.msg, ...(typeof rec.time === 'number' ? { time: rec.time } : {}) });
  }
  return lines.slice(-max);
}

function tail(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, TAIL_BYTES);
    const buf = Buffer.alloc(length);
    readSync(fd, buf, 0, length, size - length);
    return buf.toString('utf8');
  } finally {
    closeSync(fd);
  }
}
