/**
 * 3 Tools: every tool clients see, with the backend that serves it, and the
 * ones whose definitions wait for approval, marked; Enter opens a tool to
 * call it, `a` approves a waiting definition after a confirmation.
 */
import type { ToolInfo } from '../../client/api-types.js';
import type { PageSpec } from '../page-spec.js';
import { seg } from '../text.js';

export const toolsPage: PageSpec = {
  title: (ctx) => `Tools (${visibleTools(ctx.data.capabilities?.tools).length})`,
  table: (ctx) => ({
    columns: [{ header: 'NAME' }, { header: 'BACKEND' }, { header: 'PENDING' }, { header: 'DESCRIPTION', flex: true }],
    rows: visibleTools(ctx.data.capabilities?.tools)
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((t) => ({ key: t.name, cells: [t.name, t.backend, pendingMark(t), t.description.split('\n')[0]] })),
    empty: ctx.data.connecting ? 'Loading…' : 'No tools.',
  }),
  bindings: () => [
    { keys: ['enter'], label: 'schema and call', needsRow: true, run: (ctx, row) => row && ctx.tui.push('tool', row.key) },
    {
      keys: ['a'],
      label: 'approve a pending definition',
      action: true,
      needsRow: true,
      run: (ctx, row) => {
        const tool = ctx.data.capabilities?.tools.find((t) => t.name === row?.key);
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
};

/** Why a definition waits: red when clients are kept from it, yellow when it is served and reported. */
function pendingMark(t: ToolInfo) {
  if (!t.pending) return '';
  return seg(t.quarantined ? `${t.pending} (quarantined)` : t.pending, { color: t.quarantined ? 'red' : 'yellow' });
}

/** Tools the backend filters hide are not served, so they cannot be called either. */
function visibleTools<T extends { filtered: boolean }>(tools: T[] | undefined): T[] {
  return (tools ?? []).filter((t) => !t.filtered);
}
