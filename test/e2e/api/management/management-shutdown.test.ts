/**
 * POST /shutdown: the answer comes first, then the gateway stops; run from the
 * CLI, the process then exits 0.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, expect } from 'vitest';
import { stringify } from 'yaml';
import { startGateway } from '../../../helpers/gateway-harness.js';
import { startGatewayCli } from '../../../helpers/gateway-cli.js';
import { managementClient, expectError } from '../../../helpers/management-client.js';

describe('POST /shutdown', () => {
  it('answers {shutting_down: true}, then stops the in-process gateway', async () => {
    const h = await startGateway({});
    const stopped = new Promise<void>((resolve) => h.gateway.onStopped(resolve));
    const api = managementClient(h.url);
    expectError(await api.post('/shutdown', { timeout_seconds: 'soon' }), 400, 'bad_request');
    expect(h.gateway.controller.state).toBe('running');

    const baseline = h.gateway.events.subscriberCount;
    const stream = await fetch(`${h.url}/manage/v1/events/stream`);
    const reader = stream.body!.getReader();
    const drained = (async () => {
      let text = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return text;
        text += new TextDecoder().decode(value);
      }
    })();

    // An empty JSON body counts as no body.
    const res = await api.request('POST', '/shutdown', { raw: '', contentType: 'application/json' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ shutting_down: true });
    await stopped;
    // Open event streams end cleanly with the gateway.
    await drained;
    await expect.poll(() => h.gateway.events.subscriberCount).toBe(baseline);
    expect(h.gateway.controller.state).toBe('stopped');
    await expect(fetch(`${h.url}/manage/v1/health`)).rejects.toThrow();
  });

  it('makes `gateway server` exit 0 (token from GATEWAY_MGMT_TOKEN)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-shutdown-'));
    const configPath = join(dir, 'config.yaml');
    writeFileSync(configPath, stringify({ server: { host: '127.0.0.1', port: 0 }, audit: { file: join(dir, 'audit.jsonl') } }));
    const gw = await startGatewayCli({
      args: ['--config', configPath, '--port', '0', '--log-level', 'warn'],
      cwd: dir,
      env: { ...process.env, GATEWAY_MGMT_TOKEN: 'cli-secret-0123456789abcdef0123456789' },
    });
    const exited = new Promise<number | null>((resolve) => {
      if (gw.child.exitCode !== null) resolve(gw.child.exitCode);
      gw.child.once('exit', (code) => resolve(code));
    });
    try {
      const api = managementClient(gw.url, 'cli-secret-0123456789abcdef0123456789');
      expectError(await api.post('/shutdown', { timeout_seconds: 1 }, { token: null }), 401, 'unauthorized');
      const res = await api.post('/shutdown', { timeout_seconds: 1 });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ shutting_down: true });
      expect(await exited).toBe(0);
    } finally {
      await gw.stop(2000);
    }
  });
});
