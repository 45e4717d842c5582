/**
 * 3 Tools: every tool clients see, with the backend that serves it; `s`
 * searches them by what they do (the optimizer's search, GET /tools/search),
 * best first; Enter opens a tool to call it.
 */
import type { PageSpec } from '../page-spec.js';
import { line, seg, type Line } from '../text.js';
import { field, layoutFields } from './fields.js';

/** As many matches as find_tool may return. */
const SEARCH_LIMIT = 50;

export const toolsPage: PageSpec = {
  title: (ctx) => (ctx.page.toolHits ? `Tools matching (${ctx.page.toolHits.length})` : `Tools (${visibleTools(ctx.data.capabilities?.tools).length})`),
  table: (ctx) => {
    const hits = ctx.page.toolHits;
    const search = ctx.page.field ? seg(ctx.page.field, { color: 'cyan' }) : seg('press s to search the tools by what they do', { dim: true });
    const above: Line[] = layoutFields([field('Search', [search])], ctx.width);
    if (ctx.page.busy) above.push(line(seg('Searching…', { dim: true })));
    else if (ctx.page.result) above.push(...ctx.page.result.lines);
    if (hits) {
      return {
        above,
        columns: [{ header: 'NAME' }, { header: 'BACKEND' }, { header: 'SCORE' }, { header: 'DESCRIPTION', flex: true }],
        rows: hits.map((t) => ({ key: t.name, cells: [t.name, t.backend, t.score.toFixed(2), t.description.split('\n')[0]] })),
        empty: 'No tool matches.',
      };
    }
    return {
      above,
      columns: [{ header: 'NAME' }, { header: 'BACKEND' }, { header: 'DESCRIPTION', flex: true }],
      rows: visibleTools(ctx.data.capabilities?.tools)
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((t) => ({ key: t.name, cells: [t.name, t.backend, t.description.split('\n')[0]] })),
      empty: ctx.data.connecting ? 'Loading…' : 'No tools.',
    };
  },
  bindings: () => [
    { keys: ['enter'], label: 'schema and call', needsRow: true, run: (ctx, row) => row && ctx.tui.push('tool', row.key) },
    { keys: ['s'], label: 'search (empty: all tools)', run: (ctx) => ctx.tui.editField(ctx.page, 'search> ', ctx.page.field ?? '') },
  ],
  submit: (ctx, text) => {
    const q = text.trim();
    const id = ctx.page.id;
    if (!q) return ctx.tui.updatePage(id, { field: undefined, toolHits: undefined, result: undefined, cursor: 0 });
    ctx.tui.updatePage(id, { field: q, busy: true, result: undefined, cursor: 0 });
    ctx.tui.client.searchTools(q, SEARCH_LIMIT).then(
      (r) => ctx.tui.updatePage(id, { busy: false, toolHits: r.tools, result: undefined }),
      (err: Error) => ctx.tui.updatePage(id, { busy: false, toolHits: [], result: { lines: [line(seg(err.message, { color: 'red' }))], failed: true } }),
    );
  },
};

/** Tools the backend filters hide are not served, so they cannot be called either. */
function visibleTools<T extends { filtered: boolean }>(tools: T[] | undefined): T[] {
  return (tools ?? []).filter((t) => !t.filtered);
}
