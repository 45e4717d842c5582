/**
 * `l` on a backend: its events, newest first, and its stderr lines. The API
 * serves no stderr; they come from the log file of a local detached session
 * (data/backend-stderr.ts), when the gateway logs them (`-vv`), and only
 * those of the session's current run.
 */
import type { PageContext, PageSpec } from '../page-spec.js';
import { line, seg, type Line } from '../text.js';
import { readBackendStderr, type StderrLine } from '../data/backend-stderr.js';
import { currentRun, type SessionRun } from '../data/session-run.js';
import { clock } from './format.js';
import { eventLines } from './event-line.js';

export const backendLogPage: PageSpec = {
  title: (ctx) => `Backends › ${ctx.page.subject} › log`,
  open: (ctx) => ctx.tui.loadEvents(),
  lines: (ctx) => {
    const name = ctx.page.subject ?? '';
    const events = ctx.data.events.filter((e) => e.backend === name);
    const out: Line[] = [line(seg(`Events (${events.length})`, { bold: true }))];
    if (events.length === 0) out.push(line(seg('none', { dim: true })));
    out.push(...eventLines(events, { backend: false }));
    out.push([], ...stderrSection(ctx, name));
    return out;
  },
};

function stderrSection(ctx: PageContext, name: string): Line[] {
  const file = ctx.ui.active.logFile;
  if (!file)
    return [
      line(seg('stderr', { bold: true })),
      line(seg('Not available: stderr lines are read from the log file of a local detached session (gateway server -d -vv).', { dim: true })),
    ];
  let read: { run?: SessionRun; lines: StderrLine[] };
  try {
    read = cachedStderr(ctx.ui.active.url, file, name);
  } catch (err) {
    return [line(seg(`stderr (${file})`, { bold: true })), line(seg((err as Error).message, { color: 'red' }))];
  }
  if (!read.run)
    return [
      line(seg(`stderr (${file})`, { bold: true })),
      line(seg('Not available: no running session at this address writes this log file now.', { dim: true })),
    ];
  const { lines } = read;
  const out: Line[] = [line(seg(`stderr (${lines.length}, this run: pid ${read.run.pid}, from ${file})`, { bold: true }))];
  if (lines.length === 0) out.push(line(seg('none logged (the gateway logs backend stderr with -vv or --log-level debug)', { dim: true })));
  for (const l of [...lines].reverse()) out.push(line(seg(clock(l.time), { dim: true }), ' ', l.text));
  return out;
}

/** The page is drawn on every key and update: read the session and its log at most once a second. */
let cache: { key: string; at: number; run?: SessionRun; lines: StderrLine[] } | undefined;
function cachedStderr(url: string, file: string, backend: string): { run?: SessionRun; lines: StderrLine[] } {
  const key = `${url}\n${file}\n${backend}`;
  if (cache && cache.key === key && Date.now() - cache.at < 1000) return cache;
  const run = currentRun(url, file);
  cache = { key, at: Date.now(), run, lines: run ? readBackendStderr(run, backend) : [] };
  return cache;
}
