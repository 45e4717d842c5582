/**
 * `l` on a backend: its events, newest first, and its stderr lines. The API
 * serves no stderr; they come from the log file of a local detached session
 * (data/backend-stderr.ts), when the gateway logs them (`-vv`).
 */
import type { PageContext, PageSpec } from '../page-spec.js';
import { line, seg, type Line } from '../text.js';
import { readBackendStderr, type StderrLine } from '../data/backend-stderr.js';
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
  let lines: StderrLine[];
  try {
    lines = cachedStderr(file, name);
  } catch (err) {
    return [line(seg(`stderr (${file})`, { bold: true })), line(seg((err as Error).message, { color: 'red' }))];
  }
  const out: Line[] = [line(seg(`stderr (${lines.length}, from ${file})`, { bold: true }))];
  if (lines.length === 0) out.push(line(seg('none logged (the gateway logs backend stderr with -vv or --log-level debug)', { dim: true })));
  for (const l of [...lines].reverse()) out.push(line(seg(clock(l.time), { dim: true }), ' ', l.text));
  return out;
}

/** The page is drawn on every key and update: read the file at most once a second. */
let cache: { key: string; at: number; lines: StderrLine[] } | undefined;
function cachedStderr(file: string, backend: string): StderrLine[] {
  const key = `${file}\n${backend}`;
  if (cache && cache.key === key && Date.now() - cache.at < 1000) return cache.lines;
  cache = { key, at: Date.now(), lines: readBackendStderr(file, backend) };
  return cache.lines;
}
