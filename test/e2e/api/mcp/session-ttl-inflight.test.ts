/** A session is idle only when nothing is in progress: a call longer than the TTL is not reaped mid-call. */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../../helpers/wait.js';
import { startGateway } from '../../../helpers/gateway-harness.js';
import { fixtureCommand } from '../../../fixtures/spawn.js';

describe('session TTL and calls in flight', () => {
  it('keeps a session whose call outlasts the TTL, then reaps it once idle', async () => {
    const f = fixtureCommand(['--name', 'long']);
    const h = await startGateway({
      server: { host: '127.0.0.1', port: 0, session_ttl: 0.3 },
      backends: { s: { type: 'stdio', command: f.command, args: f.args } },
    });
    try {
      const client = await h.connect();
      // Four steps of 250 ms: more than three TTLs with no other traffic from this client.
      const result = await client.callTool({ name: 's_slow', arguments: { steps: 4, delay_ms: 250 } });
      expect(result.content).toEqual([{ type: 'text', text: 'done 4' }]);
      expect(h.gateway.sessions.size).toBe(1);
      // Now idle: the reaper closes it (waiting on the store, not on a guessed sleep).
      await waitFor(() => h.gateway.sessions.size === 0, 'the reaper to close the idle session');
    } finally {
      await h.close();
    }
  });
});
