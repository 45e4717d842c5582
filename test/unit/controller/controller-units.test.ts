/**
 * The controller's pieces, one at a time: backoff, conditions, the derived
 * phase, the single-writer status store, the config diff, the event buffer,
 * the health prober and the work queue. The loop they make up is tested in
 * controller-loop.test.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, it, expect, vi } from 'vitest';
import { backoffDelay } from '../../../controller/loop/backoff.js';
import { withCondition, getCondition } from '../../../controller/status/conditions.js';
import { derivePhase } from '../../../controller/status/phase.js';
import { createStatusStore } from '../../../controller/status/status-store.js';
import { CONDITION_REASONS, CONDITION_TYPES } from '../../../schemas/conditions.js';
import { WorkQueue } from '../../../controller/loop/work-queue.js';
import { diffBackends, sameConnection } from '../../../controller/config/desired-state.js';
import { EventBus } from '../../../controller/event-bus.js';
import { parseConfigText } from '../../../controller/config/config-loader.js';
import { HealthProber, type Pingable } from '../../../controller/health/health-prober.js';
import type { BackendSpec } from '../../../schemas/config.js';
import { PHASES, SEVERITIES, STAGES, type Condition } from '../../../schemas/records.js';

describe('backoff', () => {
  const policy = { initialMs: 1000, maxMs: 60_000, jitter: 0.2 };
  const noJitter = () => 0.5; // random()*2-1 = 0

  it('doubles from the initial delay up to the cap', () => {
    const delays = Array.from({ length: 9 }, (_, i) => backoffDelay(i + 1, policy, noJitter));
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000]);
  });

  it('jitter stays within ±20% and never exceeds the cap', () => {
    expect(backoffDelay(1, policy, () => 0)).toBe(800);
    expect(backoffDelay(1, policy, () => 0.999_999)).toBe(1200);
    expect(backoffDelay(3, policy, () => 0)).toBe(3200);
    expect(backoffDelay(20, policy, () => 0)).toBe(48_000);
    expect(backoffDelay(20, policy, () => 0.999_999)).toBe(60_000);
    for (let attempt = 1; attempt < 40; attempt++) {
      for (const r of [0, 0.25, 0.5, 0.75, 0.999]) {
        const d = backoffDelay(attempt, policy, () => r);
        expect(d).toBeGreaterThanOrEqual(800);
        expect(d).toBeLessThanOrEqual(60_000);
      }
    }
  });

  it('survives absurd attempt counts and tiny settings (never 0 ms: no hot loop)', () => {
    expect(backoffDelay(100_000, policy, noJitter)).toBe(60_000);
    expect(backoffDelay(0, policy, noJitter)).toBe(1000);
    expect(backoffDelay(1, { initialMs: 1, maxMs: 1, jitter: 1 }, () => 0)).toBe(1);
  });

  it('config defaults are the documented ones', () => {
    const c = parseConfigText('{}');
    expect(c.controller).toMatchObject({
      backoff_initial_ms: 1000,
      backoff_max_ms: 60_000,
      backoff_jitter: 0.2,
      concurrency: 8,
      rate_limit_per_s: 20,
      reload_debounce_ms: 300,
      resync_s: 300,
    });
    expect(c.health).toEqual({ interval_s: 30, timeout_s: 5, degraded_latency_ms: 1000 });
    expect(c.events.buffer_size).toBe(1000);
    expect(c.feature_flags.hot_reload).toBe(false);
  });
});

describe('conditions', () => {
  it('last_transition moves only when the status flips; writes return a new list', () => {
    const t0 = new Date('2024-01-01T00:00:00Z');
    const t1 = new Date('2024-01-01T00:01:00Z');
    const t2 = new Date('2024-01-01T00:02:00Z');
    const empty: Condition[] = [];
    const l0 = withCondition(empty, { type: 'Ready', status: false, reason: 'Pending', message: 'not started' }, t0);
    const l1 = withCondition(l0, { type: 'Ready', status: false, reason: 'Connecting', message: 'in progress' }, t1);
    expect(empty).toEqual([]);
    expect(getCondition(l0, 'Ready')!.reason).toBe('Pending');
    expect(getCondition(l1, 'Ready')).toEqual({
      type: 'Ready',
      status: false,
      reason: 'Connecting',
      message: 'in progress',
      last_transition: t0.toISOString(),
    });
    const l2 = withCondition(l1, { type: 'Ready', status: true, reason: 'Connected', message: 'ok' }, t2);
    expect(getCondition(l2, 'Ready')!.last_transition).toBe(t2.toISOString());
    // Other condition types are independent.
    const l3 = withCondition(l2, { type: 'HealthCheckFailed', status: false, reason: 'NotChecked', message: '' }, t0);
    const l4 = withCondition(l3, { type: 'HealthCheckFailed', status: false, reason: 'HealthCheckPassed', message: '' }, t2);
    expect(getCondition(l4, 'HealthCheckFailed')!.last_transition).toBe(t0.toISOString());
    expect(l4).toHaveLength(2);
  });
});

describe('phase, derived from conditions', () => {
  const c = (type: 'Ready' | 'HealthCheckFailed', status: boolean, reason: string): Condition => ({ type, status, reason, message: '', last_transition: '' });
  it('maps every combination the reconciler writes', () => {
    expect(derivePhase([c('Ready', false, 'Pending')], false)).toBe('Pending');
    expect(derivePhase([c('Ready', false, 'Disabled')], false)).toBe('Pending');
    expect(derivePhase([c('Ready', false, 'Connecting')], false)).toBe('Initializing');
    expect(derivePhase([c('Ready', false, 'ConnectFailed')], false)).toBe('Failed');
    expect(derivePhase([c('Ready', false, 'ConnectionLost')], false)).toBe('Failed');
    expect(derivePhase([c('Ready', false, 'NameConflict')], false)).toBe('Failed');
    expect(derivePhase([c('Ready', true, 'Connected'), c('HealthCheckFailed', false, 'NotChecked')], false)).toBe('Ready');
    expect(derivePhase([c('Ready', true, 'Degraded'), c('HealthCheckFailed', true, 'SlowResponse')], false)).toBe('Degraded');
    expect(derivePhase([c('Ready', true, 'Connected')], true)).toBe('ShuttingDown');
    expect(derivePhase([], false)).toBe('Pending');
  });
});

describe('status store: one writer, frozen records', () => {
  it('publishes phase changes as events, freezes what it hands out, tells listeners', () => {
    const events = new EventBus(100);
    const { view, writer } = createStatusStore(events);
    const changed: string[] = [];
    view.onChange((name) => changed.push(name));
    const first = writer.create('a', { type: 'stdio', command: 'x' });
    expect(first.phase).toBe('Pending');
    const second = writer.apply('a', {
      patch: { state: 'connecting', conditions: [{ type: 'Ready', status: false, reason: 'Connecting', message: 'm' }] },
      why: 'connecting',
    });
    expect(second.phase).toBe('Initializing');
    expect(first.phase).toBe('Pending'); // a record once read never changes
    expect(Object.isFrozen(second)).toBe(true);
    expect(Object.isFrozen(second.conditions)).toBe(true);
    expect(() => {
      (second as { phase: string }).phase = 'Ready';
    }).toThrow(TypeError);
    expect(events.list().map((e) => e.message)).toEqual(['a: Pending -> Initializing (connecting)']);
    writer.apply('a', { patch: { error: 'x' } }); // no phase change, no event
    expect(events.list()).toHaveLength(1);
    // A transition's events follow its patch, about its backend.
    writer.apply('a', { patch: { error: null }, events: [{ stage: 'catalog', message: 'a: 1 tools' }] });
    expect(events.list().map((e) => [e.stage, e.backend])).toEqual([
      ['phase_changed', 'a'],
      ['catalog', 'a'],
    ]);
    writer.remove('a', { events: [{ stage: 'removed', message: 'backend a removed' }] });
    expect(events.list().at(-1)).toMatchObject({ stage: 'removed', backend: 'a' });
    expect(view.get('a')).toBeUndefined();
    expect(changed).toEqual(['a', 'a', 'a', 'a', 'a']);
    // The view has no way to write.
    expect(Object.keys(view).sort()).toEqual(['get', 'list', 'onChange']);
  });
});

describe('desired state diff', () => {
  const base = (extra: Partial<BackendSpec> = {}): BackendSpec => ({ type: 'stdio', command: 'node', args: ['a.js'], ...extra }) as BackendSpec;

  it('reports added, removed and changed (filters and renames included)', () => {
    const before = { keep: base(), gone: base(), filt: base(), ren: base(), cmd: base() };
    const after = {
      keep: base(),
      filt: base({ filters: { tools: { include: ['echo'] } } } as Partial<BackendSpec>),
      ren: base({ rename: { tools: { echo: 'say' } } } as Partial<BackendSpec>),
      cmd: base({ args: ['b.js'] }),
      fresh: base(),
    };
    expect(diffBackends(before, after)).toEqual({ added: ['fresh'], removed: ['gone'], changed: ['filt', 'ren', 'cmd'] });
    expect(diffBackends(after, after)).toEqual({ added: [], removed: [], changed: [] });
  });

  it('only connection settings force a reconnect', () => {
    expect(sameConnection(base(), base({ group: 'g', labels: { a: 'b' }, enabled: false }))).toBe(true);
    expect(sameConnection(base(), base({ filters: { tools: { exclude: ['x'] } } } as Partial<BackendSpec>))).toBe(true);
    expect(sameConnection(base(), base({ args: ['other.js'] }))).toBe(false);
    expect(sameConnection(base(), base({ env: { A: '1' } }))).toBe(false);
    expect(sameConnection(base(), base({ timeouts: { connect_s: 1, request_s: 60 } }))).toBe(false);
  });
});

describe('event bus', () => {
  it('keeps the newest events up to its capacity, with increasing ids', () => {
    const bus = new EventBus(3);
    for (let i = 0; i < 5; i++) bus.emit({ stage: 'connected', message: `m${i}` });
    const list = bus.list();
    expect(list.map((e) => e.message)).toEqual(['m2', 'm3', 'm4']);
    expect(list.map((e) => Number(e.id))).toEqual([3, 4, 5]);
    expect(list[0]).toMatchObject({ severity: 'info', backend: '', details: {} });
    bus.resize(2);
    expect(bus.list().map((e) => e.message)).toEqual(['m3', 'm4']);
    bus.emit({ stage: 'error', severity: 'error', backend: 'b', message: 'boom' });
    expect(bus.list({ severity: 'error' })).toHaveLength(1);
    expect(bus.list({ limit: 1 })[0].message).toBe('boom');
  });

  it('publishes to subscribers; a throwing subscriber does not stop the others', () => {
    const bus = new EventBus(10);
    const seen: string[] = [];
    bus.subscribe(() => {
      throw new Error('bad subscriber');
    });
    const off = bus.subscribe((e) => seen.push(e.stage));
    bus.emit({ stage: 'reload', message: 'x' });
    off();
    bus.emit({ stage: 'shutdown', message: 'y' });
    expect(seen).toEqual(['reload']);
    expect(bus.subscriberCount).toBe(1);
  });

  it("docs/controller.md lists every reason of every condition, in that condition's section", () => {
    const doc = readFileSync(new URL('../../../docs/controller.md', import.meta.url), 'utf8');
    for (const type of CONDITION_TYPES) {
      const section = doc.split(`\n### \`${type}\`\n`)[1]?.split('\n### ')[0]?.split('\n## ')[0];
      expect(section, `a section for ${type}`).toBeDefined();
      for (const reason of CONDITION_REASONS[type]) expect(section, `${type}: ${reason}`).toContain(`\`${reason}\``);
    }
  });

  it('docs/controller.md documents every stage, severity and phase', () => {
    const doc = readFileSync(new URL('../../../docs/controller.md', import.meta.url), 'utf8');
    for (const word of [...STAGES, ...SEVERITIES, ...PHASES]) expect(doc, word).toContain(`\`${word}\``);
  });
});

describe('health prober', () => {
  const target = (ping: (timeoutMs: number) => Promise<number>) => ({ ping });

  it('classifies pings: within the threshold healthy, above degraded, failing unhealthy; timeout passed through', async () => {
    const timeouts: number[] = [];
    const targets: Array<[string, Pingable]> = [
      ['fast', target(async (t) => (timeouts.push(t), 3))],
      ['slow', target(async () => 700)],
      [
        'down',
        target(async () => {
          throw new Error('Request timed out');
        }),
      ],
    ];
    const told: string[] = [];
    const prober = new HealthProber(
      () => targets,
      (name) => told.push(name),
      { intervalMs: 1000, timeoutMs: 1234, degradedLatencyMs: 500 },
    );
    await prober.probeAll();
    expect(prober.latest('fast')).toMatchObject({ status: 'healthy', latencyMs: 3, degradedAboveMs: 500 });
    expect(prober.latest('slow')).toMatchObject({ status: 'degraded', latencyMs: 700 });
    expect(prober.latest('down')).toMatchObject({ status: 'unhealthy', latencyMs: null, error: 'Request timed out' });
    expect(timeouts).toEqual([1234]);
    expect(told.sort()).toEqual(['down', 'fast', 'slow']);
    expect(prober.latest('fast')!.target).toBe(targets[0]![1]);
  });

  it('a hanging ping does not hold up the probes of other backends', async () => {
    let release!: (ms: number) => void;
    let hangingPings = 0;
    let fastPings = 0;
    const hanging = target(() => {
      hangingPings++;
      return new Promise<number>((r) => (release = r));
    });
    const fast = target(async () => (fastPings++, 1));
    const seen: string[] = [];
    const prober = new HealthProber(
      () => [
        ['hanging', hanging],
        ['fast', fast],
      ],
      (name) => seen.push(name),
      { intervalMs: 1000, timeoutMs: 5000, degradedLatencyMs: 500 },
    );
    const first = prober.probeAll();
    await new Promise((r) => setImmediate(r)); // the fast ping of the first round has answered
    await prober.probeAll();
    await prober.probeAll();
    expect(fastPings).toBe(3);
    expect(hangingPings).toBe(1); // not pinged again while its ping is out
    release(2);
    await first;
    expect(seen.filter((n) => n === 'hanging')).toHaveLength(1);
  });
});

describe('work queue', () => {
  it('dedupes waiting names, never runs one name twice at once, runs it again if added meanwhile', async () => {
    const runs: string[] = [];
    let running = 0;
    let maxRunning = 0;
    const releases: Array<() => void> = [];
    const q = new WorkQueue(
      async (name) => {
        runs.push(name);
        running++;
        maxRunning = Math.max(maxRunning, running);
        await new Promise<void>((r) => releases.push(r));
        running--;
      },
      { concurrency: 1, ratePerSecond: 1000 },
    );
    q.add('a'); // starts at once
    for (let i = 0; i < 10; i++) q.add('b'); // waits behind a: one entry, not ten
    for (let i = 0; i < 10; i++) q.add('a'); // a is being processed: it runs once more afterwards
    const tick = () => new Promise((r) => setImmediate(r));
    await tick();
    expect(runs).toEqual(['a']);
    releases.shift()!();
    await tick();
    expect(runs).toEqual(['a', 'b']);
    releases.shift()!();
    await tick();
    expect(runs).toEqual(['a', 'b', 'a']);
    releases.shift()!();
    await tick();
    expect(runs).toEqual(['a', 'b', 'a']);
    expect(maxRunning).toBe(1);
    await q.shutdown();
  });

  it('addAfter keeps the earliest requested time; shutdown forgets what waits', async () => {
    vi.useFakeTimers();
    try {
      const runs: string[] = [];
      const q = new WorkQueue(async (name) => void runs.push(name), { concurrency: 1, ratePerSecond: 1000 });
      q.addAfter('a', 1000);
      q.addAfter('a', 5000); // later: ignored
      q.addAfter('a', 300); // earlier: wins
      await vi.advanceTimersByTimeAsync(299);
      expect(runs).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(runs).toEqual(['a']);
      await vi.advanceTimersByTimeAsync(10_000);
      expect(runs).toEqual(['a']);
      q.addAfter('b', 100);
      await q.shutdown();
      await vi.advanceTimersByTimeAsync(1000);
      q.add('c');
      expect(runs).toEqual(['a']);
      expect(q.depth).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
