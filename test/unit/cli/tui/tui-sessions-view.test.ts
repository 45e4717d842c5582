/** The TUI's sessions page shows who owns each session (incoming_auth): its user, or a dash when anonymous. */
import { describe, expect, it } from 'vitest';
import { sessionsPage } from '../../../../cli/tui/views/sessions-view.js';
import type { PageContext } from '../../../../cli/tui/page-spec.js';
import type { Clients, Sessions } from '../../../../cli/client/api-types.js';

const record = (id: string, user: string | null): Sessions['sessions'][number] => ({
  id,
  transport_type: 'streamable-http',
  client_name: 'client',
  client_version: '1.0.0',
  protocol_version: '2025-11-25',
  tool_count: 1,
  capability_snapshot: { tools: 1, resources: 0, prompts: 0 },
  age_seconds: id === 'a' ? 1 : 2,
  idle_seconds: 0,
  ttl: 1800,
  expired: false,
  user_id: user,
  roles: user ? ['dev'] : [],
  replica: 'r1',
  waiting_input: id === 'a' ? 2 : 0,
});

describe('sessions page', () => {
  it('has a USER column with the user id, a dash for an anonymous session', () => {
    const sessions: Sessions = { active_sessions: 2, sessions: [record('a', 'dev-bot'), record('b', null)] };
    const table = sessionsPage.table!({ data: { sessions } } as unknown as PageContext);
    const user = table.columns.findIndex((c) => c.header === 'USER');
    expect(user).toBeGreaterThan(0);
    expect(table.rows.map((r) => r.cells[user])).toEqual(['dev-bot', '—']);
  });

  it('lists the clients seen without a session after the sessions, with their revision', () => {
    const sessions: Sessions = { active_sessions: 1, sessions: [record('a', 'dev-bot')] };
    const seen = new Date(Date.now() - 5000).toISOString();
    const clients: Clients = {
      clients: [
        {
          name: 'agent',
          version: '2.0',
          protocol_version: '2026-07-28',
          user_id: null,
          replica: 'r2',
          first_seen: seen,
          last_seen: seen,
          requests: 3,
          waiting_input: 0,
        },
        {
          name: 'asker',
          version: '1.0',
          protocol_version: '2026-07-28',
          user_id: 'ada',
          replica: 'r2',
          first_seen: seen,
          last_seen: seen,
          requests: 1,
          waiting_input: 2,
        },
      ],
    };
    const ctx = { data: { sessions, clients } } as unknown as PageContext;
    const table = sessionsPage.table!(ctx);
    const col = (h: string) => table.columns.findIndex((c) => c.header === h);
    // Session a has two calls waiting for its input (2025-11-25: asked on its session).
    expect(table.rows.map((r) => r.cells[col('TRANSPORT')])).toEqual([
      expect.objectContaining({ text: 'streamable-http · 2 waiting for input', color: 'yellow' }),
      'stateless',
      expect.objectContaining({ text: 'stateless · 2 waiting for input', color: 'yellow' }),
    ]);
    expect(table.rows.map((r) => r.cells[col('REVISION')])).toEqual(['2025-11-25', '2026-07-28', '2026-07-28']);
    expect(table.rows[1]!.cells[col('CLIENT')]).toBe('agent 2.0');
    expect(table.rows[1]!.cells[col('REPLICA')]).toBe('r2');
    expect(sessionsPage.title(ctx)).toBe('Sessions (1 active), 2 stateless clients');
  });
});
