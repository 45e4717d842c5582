/** 3 Tools: every tool clients see, with the backend that serves it; Enter opens it to call it. */
import type { PageSpec } from '../page-spec.js';

export const toolsPage: PageSpec = {
  title: (ctx) => `Tools (${visibleTools(ctx.data.capabilities?.tools).length})`,
  table: (ctx) => ({
    columns: [{ header: 'NAME' }, { header: 'BACKEND' }, { header: 'DESCRIPTION', flex: true }],
    rows: visibleTools(ctx.data.capabilities?.tools)
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((t) => ({ key: t.name, cells: [t.name, t.backend, t.description.split('\n')[0]] })),
    empty: ctx.data.connecting ? 'Loading…' : 'No tools.',
  }),
  bindings: () => [{ keys: ['enter'], label: 'schema and call', needsRow: true, run: (ctx, row) => row && ctx.tui.push('tool', row.key) }],
};

/** Tools the backend filters hide are not served, so they cannot be called either. */
function visibleTools<T extends { filtered: boolean }>(tools: T[] | undefined): T[] {
  return (tools ?? []).filter((t) => !t.filtered);
}
