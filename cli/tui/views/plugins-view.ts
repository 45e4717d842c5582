/** 0 Plugins: the plugin chain in chain order, what each plugin has done, and why one did not load. */
import type { PageSpec } from '../page-spec.js';
import { line, seg } from '../text.js';

const MODE_TONE = { enforce: 'green', enforce_ignore_error: undefined, permissive: 'yellow', disabled: 'gray' } as const;

export const pluginsPage: PageSpec = {
  title: (ctx) => `Plugins (${ctx.data.plugins?.plugins.length ?? 0})`,
  table: (ctx) => ({
    above: ctx.data.pluginsError ? [line(seg(`Plugins: ${ctx.data.pluginsError}`, { color: 'yellow' }))] : undefined,
    columns: [
      { header: 'NAME' },
      { header: 'MODE' },
      { header: 'PRIO' },
      { header: 'CALLS' },
      { header: 'BLOCKS' },
      { header: 'REDACT' },
      { header: 'CACHED' },
      { header: 'RETRIES' },
      { header: 'ERRORS' },
      { header: 'PROBLEM', flex: true },
    ],
    rows: (ctx.data.plugins?.plugins ?? []).map((p, i) => ({
      // Names may repeat (two rate limiters): the position keeps rows apart.
      key: `${i}:${p.name}`,
      cells: [
        seg(p.name, { color: p.enabled ? undefined : 'gray' }),
        p.enabled ? seg(p.execution_mode, { color: MODE_TONE[p.execution_mode] }) : seg('off', { color: 'gray' }),
        String(p.priority),
        String(p.counters.invocations),
        seg(String(p.counters.blocks), { color: p.counters.blocks ? 'yellow' : undefined }),
        String(p.counters.redactions),
        String(p.counters.cache_hits),
        String(p.counters.retries),
        seg(String(p.counters.errors), { color: p.counters.errors ? 'red' : undefined }),
        p.error ? seg(p.error, { color: 'red' }) : '—',
      ],
    })),
    empty: ctx.data.connecting ? 'Loading…' : 'No plugins: calls go straight to the backends.',
  }),
};
