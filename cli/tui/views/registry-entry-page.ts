/** A registry entry in full. */
import type { PageSpec } from '../page-spec.js';
import { line, seg } from '../text.js';
import { field, layoutFields } from './fields.js';

export const registryEntryPage: PageSpec = {
  title: (ctx) => `Registry › ${ctx.page.subject}`,
  lines: (ctx) => {
    const entry = ctx.ui.stack.flatMap((p) => p.found ?? []).find((s) => s.name === ctx.page.subject);
    if (!entry) return [line(seg('This entry is no longer in the results.', { color: 'yellow' }))];
    return layoutFields(
      [
        field('Name', seg(entry.name, { bold: true })),
        field('Version', entry.version),
        field('Transport', entry.transport),
        field('URL', entry.url || '—'),
        field('Command', [entry.command, ...entry.args].join(' ') || '—'),
        field('Categories', entry.categories.join(', ') || '—'),
        [],
        field('Description', entry.description),
      ],
      ctx.width,
    );
  },
};
