/**
 * GET /events/stream (frames, heartbeat, subscriber cleanup), POST /reload
 * with hot reload on, and /ready and /health when no backend is connected.
 * One gateway whose only backend cannot be reached.
 */
import { join } from 'node:path';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { managementClient, expectError, expectKeys } from '../../../helpers/management-client.js';

const DEAD_URL = 'http://127.0.0.1:9/sse';

describe('event stream, reload and readiness', () => {
  let h: Harness;
  let api: ReturnType<typeof managementClient>;
  let baseConfig: Record<string, unknown>;

  beforeAll(async () => {
    baseConfig = {
      events: { heartbeat_s: 0.2 },
      feature_flags: { hot_reload: true },
      // No retry storm, and the file watcher never beats an explicit POST /reload.
      controller: { backoff_initial_ms: 600_000, backoff_max_ms: 600_000, reload_debounce_ms: 600_000 },
      backends: { dead: { type: 'sse', url: DEAD_URL, timeouts: { connect_s: 2 } } },
    };
    h = await startGateway(baseConfig);
    api = managementClient(h.url);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('/ready is 503 and /health unhealthy while no backend is connected', async () => {
    const ready = await api.get('/ready');
    expect(ready.status).toBe(503);
    expectKeys(ready.body, ['ready', 'reason']);
    expect(ready.body.ready).toBe(false);
    expect(ready.body.reason).toMatch(/no backend connected/);
    const health = await api.get('/health');
    expect(health.status).toBe(200);
    expect(health.body.status).toBe('unhealthy');
    expect(health.body.backends).toEqual({ total: 1, connected: 0, healthy: 0 });
    const backend = (await api.get('/backends')).body.backends[0];
    expect(backend.phase).toBe('Failed');
    expect(typeof backend.error).toBe('string');
  });

  it('streams one data frame per event, heartbeats, and unsubscribes when the client leaves', async () => {
    const baseline = h.gateway.events.subscriberCount;
    const ac = new AbortController();
    const res = await fetch(`${h.url}/manage/v1/events/stream`, { signal: ac.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('cache-control')).toMatch(/no-cache/);
    await expect.poll(() => h.gateway.events.subscriberCount).toBe(baseline + 1);

    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const readUntil = async (done: () => boolean) => {
      const deadline = Date.now() + 10_000;
      while (!done()) {
        if (Date.now() > deadline) throw new Error(`stream so far:\n${text}`);
        const chunk = await reader.read();
        if (chunk.done) throw new Error(`stream ended:\n${text}`);
        text += decoder.decode(chunk.value, { stream: true });
      }
    };
    const frames = () =>
      text
        .split('\n\n')
        .filter((f) => f.startsWith('data: '))
        .map((f) => JSON.parse(f.slice('data: '.length)));

    const reconnect = api.post('/reconnect/dead');
    await readUntil(() => frames().some((e) => e.stage === 'reconnect') && frames().some((e) => e.stage === 'error'));
    expect((await reconnect).body).toEqual({ name: 'dead', reconnected: false, error: expect.any(String) });
    const event = frames().find((e) => e.stage === 'reconnect');
    expectKeys(event, ['id', 'timestamp', 'stage', 'message', 'severity', 'backend', 'details']);
    expect(event.backend).toBe('dead');
    // Each frame is exactly one `data:` line.
    for (const frame of text.split('\n\n').filter(Boolean)) expect(frame).toMatch(/^(data: \{[^\n]*\}|: heartbeat)$/);

    await readUntil(() => text.includes(': heartbeat\n\n'));
    ac.abort();
    await expect.poll(() => h.gateway.events.subscriberCount, { timeout: 5000 }).toBe(baseline);
  });

  it('POST /reload applies the changed file and reports the difference', async () => {
    const withDefaults = (extra: Record<string, unknown>) => ({
      server: { host: '127.0.0.1', port: 0 },
      audit: { file: join(h.dir, 'audit.jsonl') },
      ...baseConfig,
      ...extra,
    });
    h.writeConfig(withDefaults({ backends: { dead2: { type: 'sse', url: DEAD_URL, timeouts: { connect_s: 2 } } } }));
    const res = await api.post('/reload');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ reloaded: true, backends_added: ['dead2'], backends_removed: ['dead'], backends_changed: [], errors: [] });
    expect((await api.get('/status')).body.config.backend_count).toBe(1);

    h.writeConfig(withDefaults({ backends: { bad: { type: 'carrier-pigeon' } } }));
    const rejected = await api.post('/reload');
    expect(rejected.status).toBe(200);
    expect(rejected.body.reloaded).toBe(false);
    expect(rejected.body.errors.length).toBeGreaterThan(0);
    expect(rejected.body.errors[0]).toMatchObject({ path: expect.any(String), message: expect.any(String) });
    expect((await api.get('/backends')).body.backends.map((b: { name: string }) => b.name)).toEqual(['dead2']);
  });

  it('an unreachable backend makes /tools/call a 404 (nothing routed there)', async () => {
    expectError(await api.post('/tools/call', { tool: 'dead2_echo', arguments: {} }), 404, 'tool_not_found');
  });
});
