/** Spec 3.2 at its edges: no backend connected is unhealthy, even with none configured. */
import { describe, expect, it } from 'vitest';
import { startGateway } from '../../helpers/gateway-harness.js';

describe('aggregate health', () => {
  it('is unhealthy with no backend configured', async () => {
    const h = await startGateway({ backends: {} });
    try {
      const body = (await (await fetch(`${h.url}/manage/v1/health`)).json()) as { status: string; backends: Record<string, number> };
      expect(body.status).toBe('unhealthy');
      expect(body.backends).toEqual({ total: 0, connected: 0, healthy: 0 });
    } finally {
      await h.close();
    }
  });

  it('is unhealthy when the only backend cannot start', async () => {
    const h = await startGateway({
      controller: { backoff_initial_ms: 60_000, backoff_max_ms: 60_000 },
      backends: { broken: { type: 'stdio', command: '/nonexistent/backend' } },
    });
    try {
      const body = (await (await fetch(`${h.url}/manage/v1/health`)).json()) as { status: string; backends: Record<string, number> };
      expect(body).toMatchObject({ status: 'unhealthy', backends: { total: 1, connected: 0, healthy: 0 } });
    } finally {
      await h.close();
    }
  });
});
