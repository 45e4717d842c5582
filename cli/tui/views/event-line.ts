/** Events as aligned lines (the dashboard's recent events, a backend's log). */
import type { EventRecord } from '../../client/api-types.js';
import { alignedLines } from '../columns.js';
import { seg, type Line } from '../text.js';
import { clock, severity } from './format.js';

export function eventLines(events: EventRecord[], opts: { backend?: boolean } = {}): Line[] {
  return alignedLines(
    events.map((e) => [seg(clock(e.timestamp), { dim: true }), severity(e), opts.backend === false ? '' : e.backend || '-', e.stage, e.message]),
  );
}
