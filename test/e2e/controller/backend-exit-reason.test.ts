/**
 * A backend that dies at start says why: its record's error and its `error`
 * event carry the telling line of its stderr, not only "process exited with
 * code 1" (issue 28). The backend is a real process that fails to start.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway-harness.js';
import { waitFor } from '../../helpers/wait.js';

describe('why a backend died', () => {
  let h: Harness | undefined;
  afterAll(async () => h?.close());

  it('a stdio backend that cannot start: its error and event name the reason from its stderr', async () => {
    h = await startGateway({
      controller: { backoff_initial_ms: 60_000, backoff_max_ms: 60_000 },
      backends: {
        broken: { type: 'stdio', command: process.execPath, args: ['/nonexistent/missing-server.js'], timeouts: { connect_s: 10 } },
        // Writes a secret to stderr and exits: the reason is redacted on the way out like any text.
        leaky: {
          type: 'stdio',
          command: process.execPath,
          args: ['-e', 'console.error("fatal: token " + process.env.API_TOKEN + " rejected"); process.exit(3)'],
          env: { API_TOKEN: 'leaky-token-4b8d2f6a' },
        },
      },
    });
    await waitFor(() => h!.gateway.controller.backendRecord('broken')?.phase === 'Failed', 'broken to fail');
    const record = h.gateway.controller.backendRecord('broken')!;
    expect(record.error).toMatch(/process exited with code 1; stderr: Error: Cannot find module '\/nonexistent\/missing-server\.js'/);
    const event = h.gateway.events.list().find((e) => e.backend === 'broken' && e.stage === 'error')!;
    expect(event.message).toContain("Cannot find module '/nonexistent/missing-server.js'");

    await waitFor(() => h!.gateway.controller.backendRecord('leaky')?.phase === 'Failed', 'leaky to fail');
    const res = await fetch(`${h.url}/manage/v1/backends`);
    const leaky = ((await res.json()) as { backends: Array<{ name: string; error: string }> }).backends.find((b) => b.name === 'leaky')!;
    expect(leaky.error).toBe('Connection closed (process exited with code 3; stderr: fatal: token [REDACTED] rejected)');
  });
});
