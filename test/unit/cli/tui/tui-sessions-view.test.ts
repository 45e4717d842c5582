/** The TUI's sessions page shows who owns each session (incoming_auth): its user, or a dash when anonymous. */
import { describe, expect, it } from 'vitest';
import { sessionsPage } from '../../../../cli/tui/views/sessions-view.js';
import type { PageContext } from '../../../../cli/tui/page-spec.js';
import type { Sessions } from '../../../../cli/client/api-types.js';

const record = (id: string, user: string | null): Sessions['sessions'][number] => ({
  id,
  transport_type: 'streamable-http',
  client_name: 'client',
  tool_count: 1,
  capability_snapshot: { tools: 1, resources: 0, prompts: 0 },
  age_seconds: id === 'a' ? 1 : 2,
  idle_seconds: 0,
  ttl: 1800,
  expired: false,
  user_id: user,
  roles: user ? ['dev'] : [],
  replica: 'r1',
});

describe('sessions page', () => {
  it('has a USER column with the user id, a dash for an anonymous session', () => {
    const sessions: Sessions = { active_sessions: 2, sessions: [record('a', 'dev-bot'), record('b', null)] };
    const table = sessionsPage.table!({ data: { sessions } } as unknown as PageContext);
    const user = table.columns.findIndex((c) => c.header === 'USER');
    expect(user).toBeGreaterThan(0);
    expect(table.rows.map((r) => r.cells[user])).toEqual(['dev-bot', '—']);
  });
});
