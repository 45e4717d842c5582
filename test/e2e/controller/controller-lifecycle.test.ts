/**
 * The reconcile loop end to end with real stdio backends: a backend killed
 * from outside fails and comes back by itself, a backend that keeps failing is
 * retried with growing gaps, a flapping one backs off, a slow one turns
 * Degraded, and health results drive the phases. Intervals are tiny and every
 * wait is on an event.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startGateway, type Harness } from '../../helpers/gateway-harness.js';
import { startHttpFixture, type HttpFixture } from '../../fixtures/spawn.js';
import { GatewayError } from '../../../schemas/errors.js';
import type { BackendRecord, EventRecord } from '../../../schemas/records.js';
import { isAlive, waitFor } from '../../helpers/wait.js';
import { stdioFixture, whoami } from '../../fixtures/fixture-backend.js';

const stdio = stdioFixture;

/** Events after `mark` for one backend, oldest first. */
function eventsOf(h: Harness, backend: string, mark: number): EventRecord[] {
  return h.gateway.events.list().filter((e) => Number(e.id) > mark && e.backend === backend);
}

const lastId = (h: Harness) => Number(h.gateway.events.list({ limit: 1 })[0]?.id ?? 0);

/** `expected` occurs in `actual` in this order (other items may sit between). */
function expectInOrder(actual: string[], expected: string[]): void {
  let i = 0;
  for (const a of actual) if (a === expected[i]) i++;
  expect(i, `expected ${JSON.stringify(expected)} in order within ${JSON.stringify(actual)}`).toBe(expected.length);
}

const phaseTo =
  (backend: string, to: string, after = 0) =>
  (e: EventRecord) =>
    Number(e.id) > after && e.backend === backend && e.stage === 'phase_changed' && e.details.to === to;

describe('controller lifecycle (stdio backends)', () => {
  let h: Harness;
  let client: Client;
  let remote: HttpFixture;
  let toolListChanges = 0;
  const onToolListChange: Array<() => void> = [];

  beforeAll(async () => {
    remote = await startHttpFixture({ transport: 'streamable-http', name: 'remote' });
    h = await startGateway({
      controller: { backoff_initial_ms: 100, backoff_max_ms: 800, backoff_jitter: 0.2 },
      health: { interval_s: 0.1, timeout_s: 3, degraded_latency_ms: 400 },
      backends: {
        good: stdio(['--name', 'good']),
        slow: stdio(['--name', 'slow', '--ping-delay-ms', '1000']),
        // Starts, then exits before answering initialize: fails every time.
        broken: { type: 'stdio', command: process.execPath, args: ['-e', 'process.exit(3)'] },
        remote: { type: 'streamable-http', url: remote.url },
      },
    });
    client = await h.connect();
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      toolListChanges++;
      for (const f of onToolListChange.splice(0)) f();
    });
  });
  afterAll(async () => {
    await h?.close();
    await remote?.stop();
  });

  it('a stdio backend killed from outside goes Failed and comes back Ready by itself', async () => {
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId;
    const before = { toRecord: () => h.gateway.controller.backendRecord('good')! };
    const oldPid = h.gateway.controller.connection('good')!.pid!;
    expect((await whoami(client, 'good_whoami')).pid).toBe(oldPid);
    const readyBefore = before.toRecord().conditions.find((c) => c.type === 'Ready')!;
    expect(readyBefore.status).toBe(true);

    // Snapshot the record and the registry at the moments they matter (listeners run synchronously in emit).
    let atFailed: { record: BackendRecord; tools: string[] } | undefined;
    let atRetry: BackendRecord | undefined;
    const unsubscribe = h.gateway.events.subscribe((e) => {
      if (e.backend !== 'good') return;
      if (e.stage === 'phase_changed' && e.details.to === 'Failed' && !atFailed) {
        atFailed = { record: before.toRecord(), tools: h.gateway.serving.routes.lists.tools.map((t) => t.name) };
      }
      if (e.stage === 'retry_scheduled' && !atRetry) atRetry = before.toRecord();
    });
    const notifiedTwice = new Promise<void>((resolve) => {
      const start = toolListChanges;
      const check = () => (toolListChanges - start >= 2 ? resolve() : onToolListChange.push(check));
      check();
    });

    const mark = lastId(h);
    process.kill(oldPid, 'SIGKILL');
    await h.waitForEvent(phaseTo('good', 'Failed', mark));
    await h.waitForEvent(phaseTo('good', 'Ready', mark));
    unsubscribe();

    // While Failed: out of the registry, condition says why and when the next attempt is.
    expect(atFailed!.record).toMatchObject({ phase: 'Failed', state: 'disconnected', capabilities: { tools: 0, resources: 0, prompts: 0 } });
    expect(atFailed!.record.error).toMatch(/killed by SIGKILL/);
    expect(atFailed!.tools.some((t) => t.startsWith('good_'))).toBe(false);
    const failedReady = atRetry!.conditions.find((c) => c.type === 'Ready')!;
    expect(failedReady).toMatchObject({ status: false, reason: 'ConnectionLost' });
    expect(failedReady.message).toMatch(/killed by SIGKILL; next attempt at \S+Z \(in \d+ ms, attempt \d+\)/);
    expect(Date.parse(failedReady.last_transition)).toBeGreaterThanOrEqual(Date.parse(readyBefore.last_transition));

    // The event trail, in order.
    const trail = eventsOf(h, 'good', mark);
    expectInOrder(
      trail.map((e) => (e.stage === 'phase_changed' ? `phase:${e.details.to}` : e.stage)),
      ['phase:Failed', 'disconnected', 'retry_scheduled', 'phase:Initializing', 'connecting', 'phase:Ready', 'connected'],
    );
    expect(trail.find((e) => e.stage === 'disconnected')!.severity).toBe('error');
    expect(trail.find((e) => e.stage === 'phase_changed' && e.details.to === 'Failed')!).toMatchObject({ severity: 'error', details: { from: 'Ready' } });

    // Back: a new process, conditions flipped again, capabilities back, the client notified both ways in the same session.
    const after = h.gateway.controller.backendRecord('good')!;
    expect(after).toMatchObject({ phase: 'Ready', state: 'connected', error: null });
    expect(after.capabilities.tools).toBeGreaterThan(0);
    const readyAfter = after.conditions.find((c) => c.type === 'Ready')!;
    expect(readyAfter.status).toBe(true);
    expect(Date.parse(readyAfter.last_transition)).toBeGreaterThanOrEqual(Date.parse(failedReady.last_transition));
    expect(readyAfter.last_transition).not.toBe(readyBefore.last_transition);
    await notifiedTwice;
    const { pid: newPid } = await whoami(client, 'good_whoami');
    expect(newPid).not.toBe(oldPid);
    expect(isAlive(oldPid)).toBe(false);
    expect((client.transport as StreamableHTTPClientTransport).sessionId).toBe(sessionId);
  });

  it('an HTTP backend that goes away fails (health check) and comes back when it is up again', async () => {
    const port = remote.port;
    expect((await client.callTool({ name: 'remote_echo', arguments: { text: 'a' } })).structuredContent).toEqual({ text: 'a' });
    const mark = lastId(h);
    await remote.stop();
    await h.waitForEvent(phaseTo('remote', 'Failed', mark));
    // A ping notices: the health prober's (health_failed), or the connection's own after its event stream broke
    // (the loss then names the unreachable backend). Which one comes first is a race.
    const first = eventsOf(h, 'remote', mark)[0]!;
    if (first.stage === 'health_failed') expect(first.severity).toBe('error');
    else
      expect(
        h.gateway.controller.backendRecord('remote')!.error ??
          eventsOf(h, 'remote', mark)
            .map((e) => e.message)
            .join(' '),
      ).toMatch(/unreachable|health check failed/);
    expect(h.gateway.serving.routes.lists.tools.some((t) => t.name.startsWith('remote_'))).toBe(false);
    await h.waitForEvent((e) => Number(e.id) > mark && e.backend === 'remote' && e.stage === 'retry_scheduled');
    remote = await startHttpFixture({ transport: 'streamable-http', name: 'remote', port });
    await h.waitForEvent(phaseTo('remote', 'Ready', mark));
    expect((await client.callTool({ name: 'remote_echo', arguments: { text: 'b' } })).structuredContent).toEqual({ text: 'b' });
  });

  it('a backend that keeps failing is retried with growing gaps, never early', async () => {
    // A manual reconnect restarts backoff; its failed attempt schedules the first retry at the initial delay.
    const mark = lastId(h);
    await h.gateway.controller.reconnect('broken');
    const retries: EventRecord[] = [
      eventsOf(h, 'broken', mark)
        .filter((e) => e.stage === 'retry_scheduled')
        .at(-1)!,
    ];
    expect(retries[0].details.attempt).toBe(2);
    for (let i = 1; i < 5; i++) {
      retries.push(await h.waitForEvent((e) => Number(e.id) > Number(retries.at(-1)!.id) && e.backend === 'broken' && e.stage === 'retry_scheduled'));
    }
    const delays = retries.map((e) => e.details.delay_ms as number);
    // 100, 200, 400, 800 (cap) ±20%: each step above the last until the cap.
    for (let i = 1; i < 4; i++) expect(delays[i], JSON.stringify(delays)).toBeGreaterThan(delays[i - 1]);
    expect(delays[0]).toBeGreaterThanOrEqual(80);
    expect(Math.max(...delays)).toBeLessThanOrEqual(800);
    // Each attempt began no earlier than announced.
    const connecting = eventsOf(h, 'broken', Number(retries[0].id)).filter((e) => e.stage === 'connecting');
    for (let i = 0; i < 4; i++) {
      const next = connecting.find((c) => Number(c.id) > Number(retries[i].id))!;
      expect(Date.parse(next.timestamp)).toBeGreaterThanOrEqual(Date.parse(retries[i].details.next_attempt_at as string));
    }
    const rec = h.gateway.controller.backendRecord('broken')!;
    expect(rec.phase === 'Failed' || rec.phase === 'Initializing').toBe(true);
    expect(eventsOf(h, 'broken', mark).filter((e) => e.stage === 'error').length).toBeGreaterThanOrEqual(5);
    expect(eventsOf(h, 'broken', mark).find((e) => e.stage === 'error')!.message).toMatch(/code 3/);
  });

  it('a slow backend turns Degraded and keeps serving', async () => {
    await h.waitForEvent((e) => e.backend === 'slow' && e.stage === 'health_degraded');
    // The record, not just the event: a very slow machine may have had a ping time out in between.
    await waitFor(() => h.gateway.controller.backendRecord('slow')!.phase === 'Degraded', 'slow to be Degraded');
    const rec = h.gateway.controller.backendRecord('slow')!;
    expect(rec.phase).toBe('Degraded');
    expect(rec.health.status).toBe('degraded');
    expect(rec.health.latency_ms!).toBeGreaterThan(400);
    expect(rec.health.last_check).not.toBeNull();
    expect(rec.conditions.find((c) => c.type === 'HealthCheckFailed')).toMatchObject({ status: true, reason: 'SlowResponse' });
    expect(rec.conditions.find((c) => c.type === 'Ready')).toMatchObject({ status: true, reason: 'Degraded' });
    expect(h.gateway.events.list().find(phaseTo('slow', 'Degraded'))!.severity).toBe('warning');
    const r = await client.callTool({ name: 'slow_echo', arguments: { text: 'still here' } });
    expect(r.structuredContent).toEqual({ text: 'still here' });
    // Spec 3.2: some backends unhealthy or disconnected.
    expect(h.gateway.controller.aggregateHealth()).toMatchObject({ status: 'degraded', total: 4, connected: 3, healthy: 2 });
  });

  it('health results drive the phases: Degraded → Ready → Failed (ping timeout) → Ready', async () => {
    const health = h.gateway.controller.health;
    const policy = { intervalMs: 100, timeoutMs: 3000, degradedLatencyMs: 400 };
    try {
      await h.waitForEvent((e) => e.backend === 'slow' && e.stage === 'health_degraded');
      const hcf0 = h.gateway.controller.backendRecord('slow')!.conditions.find((c) => c.type === 'HealthCheckFailed')!;
      expect(hcf0.status).toBe(true);

      // A generous threshold: the same 1 s ping is healthy now.
      let mark = lastId(h);
      health.setPolicy({ ...policy, degradedLatencyMs: 10_000 });
      await h.waitForEvent((e) => Number(e.id) > mark && e.backend === 'slow' && e.stage === 'health_recovered');
      await h.waitForEvent(phaseTo('slow', 'Ready', mark));
      let rec = h.gateway.controller.backendRecord('slow')!;
      const hcf1 = rec.conditions.find((c) => c.type === 'HealthCheckFailed')!;
      expect(hcf1).toMatchObject({ status: false, reason: 'HealthCheckPassed' });
      expect(hcf1.last_transition).not.toBe(hcf0.last_transition);
      expect(rec.health.status).toBe('healthy');

      // A timeout below the ping delay: unhealthy → Failed, capabilities out, retried.
      mark = lastId(h);
      let atFailed: BackendRecord | undefined;
      const off = h.gateway.events.subscribe((e) => {
        if (phaseTo('slow', 'Failed', mark)(e) && !atFailed) atFailed = h.gateway.controller.backendRecord('slow')!;
      });
      health.setPolicy({ ...policy, timeoutMs: 500 });
      await h.waitForEvent((e) => Number(e.id) > mark && e.backend === 'slow' && e.stage === 'health_failed');
      await h.waitForEvent(phaseTo('slow', 'Failed', mark));
      off();
      expect(atFailed!.health.status).toBe('unhealthy');
      expect(atFailed!.conditions.find((c) => c.type === 'HealthCheckFailed')).toMatchObject({ status: true, reason: 'PingFailed' });
      expect(atFailed!.conditions.find((c) => c.type === 'Ready')).toMatchObject({ status: false, reason: 'ConnectionLost' });
      expect(atFailed!.capabilities.tools).toBe(0);
      expect(h.gateway.serving.routes.lists.tools.some((t) => t.name.startsWith('slow_'))).toBe(false);

      // Back to a sane timeout: the loop brings it back by itself.
      mark = lastId(h);
      health.setPolicy({ ...policy, degradedLatencyMs: 10_000 });
      await h.waitForEvent((e) => Number(e.id) > mark && e.backend === 'slow' && e.stage === 'connected');
      rec = h.gateway.controller.backendRecord('slow')!;
      expect(rec.state).toBe('connected');
      await h.waitForEvent((e) => Number(e.id) > mark && e.backend === 'slow' && e.stage === 'phase_changed' && e.details.to === 'Ready');
    } finally {
      health.setPolicy(policy);
    }
  });

  it('manual reconnect: fresh connection through the same loop; unknown name is not found', async () => {
    const oldPid = h.gateway.controller.connection('good')!.pid!;
    const mark = lastId(h);
    await expect(h.gateway.controller.reconnect('good')).resolves.toEqual({ name: 'good', reconnected: true, error: null });
    const newPid = h.gateway.controller.connection('good')!.pid!;
    expect(newPid).not.toBe(oldPid);
    expect(isAlive(oldPid)).toBe(false);
    expectInOrder(
      eventsOf(h, 'good', mark).map((e) => e.stage),
      ['reconnect', 'disconnected', 'connecting', 'connected'],
    );
    expect(eventsOf(h, 'good', mark)[0]).toMatchObject({ stage: 'reconnect', details: { trigger: 'manual' } });
    expect((await whoami(client, 'good_whoami')).pid).toBe(newPid);

    const failed = await h.gateway.controller.reconnect('broken');
    expect(failed.reconnected).toBe(false);
    expect(failed.error).toMatch(/code 3/);

    const err = await h.gateway.controller.reconnect('nope').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).code).toBe('backend_not_found');
  });
});

describe('controller lifecycle: a flapping backend', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startGateway({
      // Stability window = backoff_max_ms (5 s): these connections live well under a second.
      controller: { backoff_initial_ms: 100, backoff_max_ms: 5000, backoff_jitter: 0.2 },
      backends: { flappy: stdio(['--name', 'flappy', '--exit-after-ms', '700']) },
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('connects, crashes, and is retried with growing gaps instead of a hot loop', async () => {
    let healthWhenFailed: unknown;
    const off = h.gateway.events.subscribe((e) => {
      if (e.stage === 'phase_changed' && e.details.to === 'Failed') healthWhenFailed ??= h.gateway.controller.aggregateHealth();
    });
    const retries: EventRecord[] = [];
    for (let i = 0; i < 3; i++) {
      retries.push(await h.waitForEvent((e) => Number(e.id) > Number(retries.at(-1)?.id ?? 0) && e.backend === 'flappy' && e.stage === 'retry_scheduled'));
    }
    const delays = retries.map((e) => e.details.delay_ms as number);
    expect(delays[1], JSON.stringify(delays)).toBeGreaterThan(delays[0]);
    expect(delays[2], JSON.stringify(delays)).toBeGreaterThan(delays[1]);
    // It really flapped: it connected more than once.
    const connected = h.gateway.events.list().filter((e) => e.backend === 'flappy' && e.stage === 'connected');
    expect(connected.length).toBeGreaterThanOrEqual(2);
    off();
    // Spec 3.2 while its only backend is down: unhealthy.
    expect(healthWhenFailed).toMatchObject({ status: 'unhealthy', total: 1, connected: 0, healthy: 0 });
  });
});
