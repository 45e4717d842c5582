/** Graceful shutdown lets forwarded requests finish within the timeout, and no longer. */
import { describe, expect, it } from 'vitest';
import { startGateway } from '../../helpers/gateway-harness.js';
import { fixtureCommand } from '../../fixtures/spawn.js';

const backend = () => {
  const f = fixtureCommand(['--name', 'slowpoke']);
  return { s: { type: 'stdio', command: f.command, args: f.args } };
};

describe('shutdown with requests in flight', () => {
  it('a call in flight completes before the gateway stops', async () => {
    const h = await startGateway({ backends: backend() });
    const client = await h.connect();
    const call = client.callTool({ name: 's_slow', arguments: { steps: 4, delay_ms: 150 } });
    while (h.gateway.router.inFlightCount === 0) await new Promise((r) => setImmediate(r));
    const stopped = h.gateway.shutdown(10);
    const result = await call;
    expect(result.content).toEqual([{ type: 'text', text: 'done 4' }]);
    await stopped;
    expect(h.gateway.controller.state).toBe('stopped');
    // The listener is closed: a new client cannot connect.
    await expect(fetch(`${h.url}/manage/v1/health`)).rejects.toThrow();
  });

  it('a call still running at the timeout is abandoned and shutdown completes', async () => {
    const h = await startGateway({ backends: backend() });
    const client = await h.connect();
    const call = client.callTool({ name: 's_slow', arguments: { steps: 100, delay_ms: 200 } });
    const outcome = call.then(
      () => 'completed',
      () => 'abandoned',
    );
    while (h.gateway.router.inFlightCount === 0) await new Promise((r) => setImmediate(r));
    await h.gateway.shutdown(0.3);
    expect(h.gateway.controller.state).toBe('stopped');
    expect(await outcome).toBe('abandoned');
  });
});
