/** 2 Backends: one row per backend; Enter opens it, `r` `a` `l` act on it. */
import type { BackendRecord } from '../../client/api-types.js';
import type { PageSpec } from '../page-spec.js';
import { seg, toneOf } from '../text.js';
import { backendBindings } from './backend-actions.js';
import { ago } from './format.js';

export const backendsPage: PageSpec = {
  title: (ctx) => `Backends (${ctx.data.backends.length})`,
  table: (ctx) => ({
    columns: [
      { header: 'NAME' },
      { header: 'TYPE' },
      { header: 'GROUP' },
      { header: 'PHASE' },
      { header: 'MCP' },
      { header: 'TOOLS' },
      { header: 'LATENCY' },
      { header: 'TRANSITION', flex: true },
    ],
    rows: [...ctx.data.backends]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((b) => ({
        key: b.name,
        cells: [
          b.name,
          b.type,
          b.group,
          seg(b.phase, { color: toneOf(b.phase) }),
          b.protocol_version ?? '—',
          String(b.capabilities.tools),
          b.health.latency_ms === null ? '—' : `${Math.round(b.health.latency_ms)}ms`,
          ago(lastTransition(b)),
        ],
      })),
    empty: ctx.data.connecting ? 'Loading…' : 'No backends.',
  }),
  bindings: () => [
    { keys: ['enter'], label: 'details', needsRow: true, run: (ctx, row) => row && ctx.tui.push('backend', row.key) },
    ...backendBindings((_ctx, key) => key, true),
  ],
};

/** The newest `last_transition` of the backend's conditions. */
export function lastTransition(b: BackendRecord): string | undefined {
  return b.conditions
    .map((c) => c.last_transition)
    .sort()
    .at(-1);
}
