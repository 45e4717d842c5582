/**
 * 3 Tools: every tool the backends offer but their filters hide, with the
 * backend that serves it; the ones clients cannot call (quarantined, a name
 * another backend keeps, an invalid name) and the ones whose definitions
 * wait for approval are marked in STATE. `s` searches them by what they do
 * (the optimizer's search, GET /tools/search), best first; Enter opens a tool
 * (to call it, when it is callable), `a` approves a waiting definition after
 * a confirmation.
 */
import type { ToolInfo } from '../../client/api-types.js';
import { whyHidden } from '../../client/tool-availability.js';
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
      columns: [{ header: 'NAME' }, { header: 'BACKEND' }, { header: 'STATE' }, { header: 'DESCRIPTION', flex: true }],
      rows: visibleTools(ctx.data.capabilities?.tools)
        .sort((a, b) => a.name.localeCompare(b.name) || a.backend.localeCompare(b.backend))
        .map((t) => ({ key: toolKey(t), cells: [t.name, t.backend, stateMark(t), t.description.split('\n')[0]] })),
      empty: ctx.data.connecting ? 'Loading…' : 'No tools.',
    };
  },
  bindings: () => [
    { keys: ['enter'], label: 'schema and call', needsRow: true, run: (ctx, row) => row && ctx.tui.push('tool', row.key) },
    { keys: ['s'], label: 'search (empty: all tools)', run: (ctx) => ctx.tui.editField(ctx.page, 'search> ', ctx.page.field ?? '') },
    {
      keys: ['a'],
      label: 'approve a pending definition',
      action: true,
      needsRow: true,
      run: (ctx, row) => {
        const tool = row && findTool(ctx.data.capabilities?.tools, row.key);
        if (!tool) return;
        if (!tool.pending) return ctx.tui.flash(`${tool.name} does not wait for approval`);
        ctx.tui.confirm(
          `Approve the current definition of ${tool.name} (${tool.pending}, backend ${tool.backend})? Clients will see and call it. Read it first: gateway-client tools diff ${tool.name}`,
          () =>
            ctx.tui.act(
              () => ctx.tui.client.approveTool(tool.name),
              (a) => ({ text: `Approved ${a.name}: pinned sha256 ${a.hash.slice(0, 12)}…` }),
            ),
        );
      },
    },
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

/**
 * Red when clients can neither see nor call it (quarantined: why its
 * definition waits; otherwise why it is hidden), yellow when its definition
 * waits but it is served and reported, nothing when it is callable.
 */
function stateMark(t: ToolInfo) {
  if (t.quarantined) return seg(`${t.pending} (quarantined)`, { color: 'red' });
  const hidden = whyHidden(t);
  if (hidden !== undefined) return seg(`hidden: ${hidden}`, { color: 'red' });
  return t.pending ? seg(t.pending, { color: 'yellow' }) : '';
}

/** A row's key: two backends may list the same exposed name (the one whose name another keeps). */
export const toolKey = (t: ToolInfo): string => `${t.backend}\n${t.name}`;

export const nameInKey = (key: string): string => key.slice(key.indexOf('\n') + 1);

export function findTool(tools: ToolInfo[] | undefined, key: string): ToolInfo | undefined {
  return tools?.find((t) => toolKey(t) === key);
}

/** Tools the backend filters hide are not served, so they cannot be called either. */
function visibleTools<T extends { filtered: boolean }>(tools: T[] | undefined): T[] {
  return (tools ?? []).filter((t) => !t.filtered);
}
