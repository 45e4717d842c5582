/** 8 Registry: `s` opens the search box; the results are a table; Enter shows an entry. */
import type { PageSpec } from '../page-spec.js';
import { line, seg, type Line } from '../text.js';
import { field, layoutFields } from './fields.js';

export const registryPage: PageSpec = {
  title: (ctx) => `Registry${ctx.page.found ? ` (${ctx.page.found.length})` : ''}`,
  table: (ctx) => {
    const search = ctx.page.field ? seg(ctx.page.field, { color: 'cyan' }) : seg('press s to search the registry', { dim: true });
    // One line: the table below keeps its room.
    const above: Line[] = layoutFields([field('Search', [search])], ctx.width);
    if (ctx.page.busy) above.push(line(seg('Searching…', { dim: true })));
    else if (ctx.page.result) above.push(...ctx.page.result.lines);
    return {
      above,
      columns: [{ header: 'NAME' }, { header: 'VERSION' }, { header: 'TRANSPORT' }, { header: 'DESCRIPTION', flex: true }],
      rows: (ctx.page.found ?? []).map((s) => ({ key: s.name, cells: [s.name, s.version, s.transport, s.description.split('\n')[0]] })),
      empty: ctx.page.found ? 'Nothing found.' : '',
    };
  },
  bindings: () => [
    { keys: ['s'], label: 'search', run: (ctx) => ctx.tui.editField(ctx.page, 'search> ', ctx.page.field ?? '') },
    { keys: ['enter'], label: 'show the entry', needsRow: true, run: (ctx, row) => row && ctx.tui.push('registry-entry', row.key) },
  ],
  submit: (ctx, text) => {
    const q = text.trim();
    const id = ctx.page.id;
    if (!q) return;
    ctx.tui.updatePage(id, { field: q, busy: true, result: undefined, cursor: 0 });
    ctx.tui.client.registrySearch(q).then(
      (r) =>
        ctx.tui.updatePage(id, {
          busy: false,
          found: r.servers,
          result: { lines: [line(seg(`${r.servers.length} of ${r.total}${r.registry ? ` from ${r.registry}` : ''}`, { dim: true }))], failed: false },
        }),
      (err: Error) => ctx.tui.updatePage(id, { busy: false, found: [], result: { lines: [line(seg(err.message, { color: 'red' }))], failed: true } }),
    );
  },
};
