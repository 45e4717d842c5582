/**
 * MCP client sessions (who, which client, which replica, how long idle) and
 * the clients seen lately without a session (GET /clients, on gateways that
 * keep them).
 */
import { ApiError, get } from '../lib/api.js';
import { useResource } from '../lib/resource.js';
import { duration, shortId } from '../lib/format.js';
import type { RecentClient, SessionRecord } from '../lib/types.js';
import { Badge } from '../components/badge.js';
import { Table } from '../components/table.js';
import { Empty, ErrorNote, Loading } from '../components/states.js';
import { RelTime } from '../components/time.js';

/** The recent clients, or null when this gateway does not list them (404). */
async function recentClients(): Promise<RecentClient[] | null> {
  try {
    const res = await get<{ clients: RecentClient[] }>('/clients');
    return res.clients;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

export function SessionsPage() {
  const sessions = useResource(() => get<{ active_sessions: number; sessions: SessionRecord[] }>('/sessions'), [], { live: true, pollMs: 5000 });
  const clients = useResource(recentClients, [], { live: true, pollMs: 15_000 });
  return (
    <section>
      <h1>Sessions and clients</h1>
      <h2>Sessions {sessions.data && <span class="count">{sessions.data.active_sessions} active</span>}</h2>
      {sessions.error && <ErrorNote error={sessions.error} retry={sessions.reload} />}
      {!sessions.data && !sessions.error && <Loading what="sessions" />}
      {sessions.data && (
        <Table
          caption="Sessions"
          rows={sessions.data.sessions}
          rowKey={(s) => s.id}
          empty={<Empty>No MCP client is connected. Sessions appear when a client connects to /mcp or /sse.</Empty>}
          initialSort={{ key: 'idle', dir: 'asc' }}
          columns={[
            { key: 'id', label: 'Session', value: (s) => s.id, render: (s) => <code title={s.id}>{shortId(s.id)}</code> },
            {
              key: 'client',
              label: 'Client',
              value: (s) => s.client_name ?? '',
              render: (s) => (s.client_name ? `${s.client_name}${s.client_version ? ` ${s.client_version}` : ''}` : <span class="muted">not initialized</span>),
            },
            { key: 'user', label: 'User', value: (s) => s.user_id ?? '', render: (s) => s.user_id ?? <span class="muted">anonymous</span> },
            { key: 'roles', label: 'Roles', value: (s) => s.roles.join(' '), render: (s) => s.roles.join(', ') || <span class="muted">—</span> },
            { key: 'transport', label: 'Transport', value: (s) => s.transport_type, render: (s) => s.transport_type },
            { key: 'replica', label: 'Replica', value: (s) => s.replica, render: (s) => s.replica },
            {
              key: 'revision',
              label: 'Revision',
              value: (s) => s.protocol_version ?? '',
              render: (s) => (s.protocol_version ? <code>{s.protocol_version}</code> : <span class="muted">—</span>),
            },
            { key: 'tools', label: 'Tools', numeric: true, value: (s) => s.tool_count, render: (s) => s.tool_count },
            { key: 'waiting', label: 'Waiting for input', numeric: true, value: (s) => s.waiting_input, render: (s) => s.waiting_input },
            { key: 'age', label: 'Age', numeric: true, value: (s) => s.age_seconds, render: (s) => duration(s.age_seconds) },
            { key: 'idle', label: 'Idle', numeric: true, value: (s) => s.idle_seconds, render: (s) => duration(s.idle_seconds) },
            {
              key: 'expired',
              label: 'State',
              value: (s) => String(s.expired),
              render: (s) => (s.expired ? <Badge value="expired" /> : <Badge value="ok" label="active" />),
            },
          ]}
        />
      )}
      <h2>Recent clients without a session</h2>
      {clients.error && <ErrorNote error={clients.error} retry={clients.reload} />}
      {clients.data === null && <Empty>This gateway does not list recent clients (no GET /manage/v1/clients).</Empty>}
      {clients.data && (
        <Table
          caption="Recent clients"
          rows={clients.data}
          rowKey={(c) => `${c.name}/${c.version ?? ''}/${c.user_id ?? ''}/${c.replica}`}
          empty={<Empty>No client has called without a session lately.</Empty>}
          initialSort={{ key: 'seen', dir: 'desc' }}
          columns={[
            { key: 'name', label: 'Client', value: (c) => c.name, render: (c) => c.name },
            { key: 'version', label: 'Version', value: (c) => c.version ?? '', render: (c) => c.version ?? <span class="muted">—</span> },
            {
              key: 'revision',
              label: 'Revision',
              value: (c) => c.protocol_version,
              render: (c) => <code>{c.protocol_version}</code>,
            },
            { key: 'user', label: 'User', value: (c) => c.user_id ?? '', render: (c) => c.user_id ?? <span class="muted">anonymous</span> },
            { key: 'replica', label: 'Replica', value: (c) => c.replica, render: (c) => c.replica },
            { key: 'requests', label: 'Requests', numeric: true, value: (c) => c.requests, render: (c) => c.requests },
            { key: 'waiting', label: 'Waiting for input', numeric: true, value: (c) => c.waiting_input, render: (c) => c.waiting_input },
            { key: 'seen', label: 'Last seen', value: (c) => c.last_seen, render: (c) => <RelTime iso={c.last_seen} /> },
          ]}
        />
      )}
    </section>
  );
}
