/** Small formats shared by the pages: clock times, ages, severities. */
import { formatDuration } from '../../output/table.js';
import type { EventRecord } from '../../client/api-types.js';
import { seg, type Color, type Segment } from '../text.js';

/** `14:03:07` in local time. */
export function clock(at: string | number | undefined): string {
  if (at === undefined) return '—';
  const d = new Date(at);
  if (Number.isNaN(d.getTime())) return '—';
  return d.toTimeString().slice(0, 8);
}

/** `4m10s ago`; `—` for no time. */
export function ago(at: string | null | undefined, now = Date.now()): string {
  if (!at) return '—';
  const t = Date.parse(at);
  return Number.isNaN(t) ? '—' : `${formatDuration((now - t) / 1000)} ago`;
}

export const SEVERITY_COLORS: Record<string, Color> = { debug: 'gray', info: 'green', warning: 'yellow', error: 'red' };

export function severity(e: EventRecord): Segment {
  return seg(e.severity, { color: SEVERITY_COLORS[e.severity] });
}

export { formatDuration };
