/** Events as aligned lines (the dashboard's recent events, a backend's log). */
import type { EventRecord } from '../../client/api-types.js';
import { line, seg, type Line } from '../text.js';
import { clock, severity } from './format.js';

export function eventLines(events: EventRecord[], opts: { backend?: boolean } = {}): Line[] {
  const backendWidth = Math.max(1, ...events.map((e) => e.backend.length));
  const stageWidth = Math.max(...events.map((e) => e.stage.length), 0);
  return events.map((e) =>
    line(
      seg(clock(e.timestamp), { dim: true }),
      '  ',
      severity(e),
      ' '.repeat(Math.max(2, 9 - e.severity.length)),
      opts.backend === false ? '' : `${(e.backend || '-').padEnd(backendWidth)}  `,
      `${e.stage.padEnd(stageWidth)}  `,
      e.message,
    ),
  );
}
