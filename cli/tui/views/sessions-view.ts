/** 5 Sessions: the MCP client sessions of /mcp and /sse. */
import type { PageSpec } from '../page-spec.js';
import { seg } from '../text.js';
import { formatDuration } from './format.js';

export const sessionsPage: PageSpec = {
  title: (ctx) => `Sessions (${ctx.data.sessions?.active_sessions ?? 0} active)`,
  table: (ctx) => ({
    columns: [
      { header: 'ID' },
      { header: 'TRANSPORT' },
      { header: 'CLIENT' },
      { header: 'USER' },
      { header: 'TOOLS' },
      { header: 'AGE' },
      { header: 'IDLE' },
      { header: 'EXPIRED' },
      { header: 'REPLICA', flex: true },
    ],
    rows: [...(ctx.data.sessions?.sessions ?? [])]
      .sort((a, b) => a.age_seconds - b.age_seconds)
      .map((s) => ({
        key: s.id,
        cells: [
          s.id,
          s.transport_type,
          s.client_name ?? '—',
          s.user_id ?? '—',
          String(s.tool_count),
          formatDuration(s.age_seconds),
          formatDuration(s.idle_seconds),
          seg(s.expired ? 'yes' : 'no', { color: s.expired ? 'red' : 'green' }),
          s.replica,
        ],
      })),
    empty: ctx.data.connecting ? 'Loading…' : 'No client sessions.',
  }),
};
