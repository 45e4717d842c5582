/** A backend's first health check runs as soon as it connects, not one interval later. */
import { describe, expect, it } from 'vitest';
import { startGateway } from '../../helpers/gateway-harness.js';
import { stdioFixture } from '../../fixtures/fixture-backend.js';
import { waitFor } from '../../helpers/wait.js';

describe('first health check', () => {
  it('fills health right after connecting, with the 30 s default interval', async () => {
    const h = await startGateway({ backends: { s: stdioFixture(['--name', 'first']) } });
    try {
      // Well inside the 30 s interval: only the immediate check can fill this in.
      const st = await waitFor(
        () => {
          const rec = h.gateway.controller.backendRecords().find((r) => r.name === 's');
          return rec?.health.last_check ? rec : undefined;
        },
        'a first health check',
        5_000,
      );
      expect(st.health.status).toBe('healthy');
      expect(typeof st.health.latency_ms).toBe('number');
      expect(st.conditions.find((c) => c.type === 'HealthCheckFailed')).toMatchObject({ status: false, reason: 'HealthCheckPassed' });
    } finally {
      await h.close();
    }
  });
});
