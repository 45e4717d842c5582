/** One event with its details. */
import type { PageSpec } from '../page-spec.js';
import { line, seg, textLines } from '../text.js';
import { field, layoutFields } from './fields.js';
import { eventKey } from './events-view.js';
import { clock, severity } from './format.js';

export const eventPage: PageSpec = {
  title: () => 'Events › event',
  lines: (ctx) => {
    const e = ctx.data.events.find((x) => eventKey(x) === ctx.page.subject);
    if (!e) return [line(seg('This event is no longer in the list.', { color: 'yellow' }))];
    return layoutFields(
      [
        field('Time', `${clock(e.timestamp)}  (${e.timestamp})`),
        field('Severity', severity(e)),
        field('Backend', e.backend || '-'),
        field('Stage', seg(e.stage, { bold: true })),
        field('Id', e.id),
        field('Message', e.message),
        [],
        line(seg('Details', { bold: true })),
        ...textLines(JSON.stringify(e.details, null, 2), ctx.width, { color: 'gray' }),
      ],
      ctx.width,
    );
  },
};
