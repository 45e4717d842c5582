/**
 * A streamable HTTP backend session the gateway ends on purpose (the backend
 * left the config, the gateway shuts down) is ended at the backend too: it
 * receives DELETE with its session id, so it can free the session at once.
 */
import { describe, expect, it } from 'vitest';
import { startGateway } from '../../helpers/gateway-harness.js';
import { startPagedBackend } from '../../fixtures/paged-backend.js';
import { waitFor } from '../../helpers/wait.js';

describe('ending backend sessions', () => {
  it('sends DELETE with the session id when a backend is removed by a reload and when the gateway stops', async () => {
    const [a, b] = await Promise.all([
      startPagedBackend({ tools: 1, resources: 0, templates: 0, prompts: 0, pageSize: 10 }),
      startPagedBackend({ tools: 1, resources: 0, templates: 0, prompts: 0, pageSize: 10 }),
    ]);
    try {
      const h = await startGateway({
        feature_flags: { hot_reload: true },
        backends: { a: { type: 'streamable-http', url: a.url }, b: { type: 'streamable-http', url: b.url } },
      });
      const sessionOf = (requests: typeof a.requests) => requests.find((r) => r.headers['mcp-session-id'])?.headers['mcp-session-id'];
      expect(sessionOf(a.requests)).toBeDefined();
      h.writeConfig({ feature_flags: { hot_reload: true }, backends: { b: { type: 'streamable-http', url: b.url } } });
      await h.gateway.controller.reload('api');
      await waitFor(() => a.requests.some((r) => r.method === 'DELETE'), 'a DELETE at the removed backend');
      expect(a.requests.find((r) => r.method === 'DELETE')!.headers['mcp-session-id']).toBe(sessionOf(a.requests));
      expect(b.requests.some((r) => r.method === 'DELETE')).toBe(false);
      await h.close();
      expect(b.requests.find((r) => r.method === 'DELETE')?.headers['mcp-session-id']).toBe(sessionOf(b.requests));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
