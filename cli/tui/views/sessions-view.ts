/** 5 Sessions: the MCP client sessions of /mcp and /sse, then the clients seen without a session (2026-07-28). */
import type { PageSpec } from '../page-spec.js';
import { seg } from '../text.js';
import { formatDuration } from './format.js';

export const sessionsPage: PageSpec = {
  title: (ctx) => {
    const clients = ctx.data.clients?.clients.length;
    return `Sessions (${ctx.data.sessions?.active_sessions ?? 0} active)${clients ? `, ${clients} stateless clients` : ''}`;
  },
  table: (ctx) => {
    const now = Date.now();
    const since = (iso: string) => formatDuration(Math.max(0, (now - Date.parse(iso)) / 1000));
    const sessions = [...(ctx.data.sessions?.sessions ?? [])]
      .sort((a, b) => a.age_seconds - b.age_seconds)
      .map((s) => ({
        key: s.id,
        cells: [
          s.id,
          // Calls that asked this client for input (elicitation, sampling, roots) and wait for its answer.
          s.waiting_input > 0 ? seg(`${s.transport_type} · ${s.waiting_input} waiting for input`, { color: 'yellow' }) : s.transport_type,
          s.client_name ?? '—',
          s.protocol_version ?? '—',
          s.user_id ?? '—',
          String(s.tool_count),
          formatDuration(s.age_seconds),
          formatDuration(s.idle_seconds),
          seg(s.expired ? 'yes' : 'no', { color: s.expired ? 'red' : 'green' }),
          s.replica,
        ],
      }));
    // A stateless client has no session: no id, tools or expiry; its age is since it was first seen, idle since last.
    const clients = (ctx.data.clients?.clients ?? []).map((c) => ({
      key: `client:${c.name}/${c.version ?? ''}/${c.user_id ?? ''}`,
      cells: [
        '—',
        // Calls that answered input_required and wait for this client's repeat.
        c.waiting_input > 0 ? seg(`stateless · ${c.waiting_input} waiting for input`, { color: 'yellow' }) : 'stateless',
        c.version ? `${c.name} ${c.version}` : c.name,
        c.protocol_version,
        c.user_id ?? '—',
        '—',
        since(c.first_seen),
        since(c.last_seen),
        '—',
        c.replica,
      ],
    }));
    return {
      columns: [
        { header: 'ID' },
        { header: 'TRANSPORT' },
        { header: 'CLIENT' },
        { header: 'REVISION' },
        { header: 'USER' },
        { header: 'TOOLS' },
        { header: 'AGE' },
        { header: 'IDLE' },
        { header: 'EXPIRED' },
        { header: 'REPLICA', flex: true },
      ],
      rows: [...sessions, ...clients],
      empty: ctx.data.connecting ? 'Loading…' : 'No client sessions, and no client without one.',
    };
  },
};
