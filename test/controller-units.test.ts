/**
 * Pure pieces of the controller: backoff, conditions, the config diff, the
 * event buffer, and the reconcile loop driven against a fake backend pool
 * (no processes, no network). Small real delays (a few ms) replace fake
 * timers; every wait is on an event, never on a guessed duration.
 */
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import { backoffDelay } from '../controller/backoff.js';
import { setCondition, getCondition } from '../controller/conditions.js';
import { diffBackends, sameConnection } from '../controller/desired-state.js';
import { EventBus } from '../controller/event-bus.js';
import { Reconciler, type ReconcilerOptions } from '../controller/reconciler.js';
import { parseConfigText } from '../controller/config-loader.js';
import { HealthMonitor, type HealthResult } from '../controller/health-monitor.js';
import { BackendState } from '../controller/backend-state.js';
import { createLogger } from '../runtime/observability/logging/logger.js';
import { emptyCatalog } from '../runtime/backends/backend-catalog.js';
import type { ServingBackends } from '../runtime/backends/serving-backends.js';
import type { BackendSpec, StdioBackendSpec } from '../schemas/config.js';
import { PHASES, SEVERITIES, STAGES, type Condition, type EventRecord } from '../schemas/records.js';

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
    });
    expect(c.health).toEqual({ interval_s: 30, timeout_s: 5, degraded_latency_ms: 1000 });
    expect(c.events.buffer_size).toBe(1000);
    expect(c.feature_flags.hot_reload).toBe(false);
  });
});

describe('conditions', () => {
  it('last_transition moves only when the status flips', () => {
    const list: Condition[] = [];
    const t0 = new Date('2024-01-01T00:00:00Z');
    const t1 = new Date('2024-01-01T00:01:00Z');
    const t2 = new Date('2024-01-01T00:02:00Z');
    expect(setCondition(list, 'Ready', false, 'Pending', 'not started', t0)).toBe(true);
    expect(setCondition(list, 'Ready', false, 'Connecting', 'in progress', t1)).toBe(false);
    expect(getCondition(list, 'Ready')).toEqual({
      type: 'Ready',
      status: false,
      reason: 'Connecting',
      message: 'in progress',
      last_transition: t0.toISOString(),
    });
    expect(setCondition(list, 'Ready', true, 'Connected', 'ok', t2)).toBe(true);
    expect(getCondition(list, 'Ready')!.last_transition).toBe(t2.toISOString());
    // Other condition types are independent.
    setCondition(list, 'HealthCheckFailed', false, 'NotChecked', '', t0);
    setCondition(list, 'HealthCheckFailed', false, 'HealthCheckPassed', '', t2);
    expect(getCondition(list, 'HealthCheckFailed')!.last_transition).toBe(t0.toISOString());
    expect(list).toHaveLength(2);
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

  it('docs/controller.md documents every stage, severity and phase', () => {
    const doc = readFileSync(new URL('../docs/controller.md', import.meta.url), 'utf8');
    for (const word of [...STAGES, ...SEVERITIES, ...PHASES]) expect(doc, word).toContain(`\`${word}\``);
  });
});

describe('health monitor', () => {
  function backend(name: string, ping: (timeoutMs: number) => Promise<number>): BackendState {
    const st = new BackendState(name, { type: 'stdio', command: 'x' });
    st.conn = { ping } as unknown as BackendState['conn'];
    return st;
  }

  it('classifies pings: within the threshold healthy, above degraded, failing unhealthy; timeout passed through', async () => {
    const timeouts: number[] = [];
    const states = [
      backend('fast', async (t) => (timeouts.push(t), 3)),
      backend('slow', async () => 700),
      backend('down', async () => {
        throw new Error('Request timed out');
      }),
    ];
    const results = new Map<string, HealthResult>();
    const monitor = new HealthMonitor(
      () => states,
      (st, r) => results.set(st.name, r),
      { intervalMs: 1000, timeoutMs: 1234, degradedLatencyMs: 500 },
    );
    await monitor.checkAll();
    expect(results.get('fast')).toMatchObject({ status: 'healthy', latencyMs: 3 });
    expect(results.get('slow')).toMatchObject({ status: 'degraded', latencyMs: 700 });
    expect(results.get('down')).toMatchObject({ status: 'unhealthy', latencyMs: null, error: 'Request timed out' });
    expect(timeouts).toEqual([1234]);
  });

  it('a hanging ping does not hold up the checks of other backends', async () => {
    let release!: (ms: number) => void;
    let hangingPings = 0;
    let fastPings = 0;
    const hanging = backend('hanging', () => {
      hangingPings++;
      return new Promise<number>((r) => (release = r));
    });
    const fast = backend('fast', async () => (fastPings++, 1));
    const seen: string[] = [];
    const monitor = new HealthMonitor(
      () => [hanging, fast],
      (st) => seen.push(st.name),
      { intervalMs: 1000, timeoutMs: 5000, degradedLatencyMs: 500 },
    );
    const first = monitor.checkAll();
    await new Promise((r) => setImmediate(r)); // the fast ping of the first round has answered
    await monitor.checkAll();
    await monitor.checkAll();
    expect(fastPings).toBe(3);
    expect(hangingPings).toBe(1); // not pinged again while its ping is out
    release(2);
    await first;
    expect(seen.filter((n) => n === 'hanging')).toHaveLength(1);
    // A result for a connection that was replaced meanwhile is dropped.
    const p = monitor.checkAll();
    hanging.conn = undefined;
    release(2);
    await p;
    expect(seen.filter((n) => n === 'hanging')).toHaveLength(1);
  });
});

// --- the reconcile loop against a fake pool ---

type Behaviour = 'ok' | 'fail' | 'flap' | 'hold' | 'hold-fail';

class FakeConn extends EventEmitter<{ closed: [string]; catalog: [] }> {
  catalog = emptyCatalog();
  pid = undefined;
  closed = false;
  release?: () => void;
  private abort?: (err: Error) => void;
  constructor(
    readonly name: string,
    readonly spec: BackendSpec,
    private readonly behaviour: Behaviour,
    private readonly pool: FakePool,
  ) {
    super();
  }
  async connect(): Promise<void> {
    this.pool.inFlight++;
    this.pool.maxInFlight = Math.max(this.pool.maxInFlight, this.pool.inFlight);
    try {
      if (this.behaviour === 'hold' || this.behaviour === 'hold-fail') {
        await new Promise<void>((resolve, reject) => {
          this.release = resolve;
          this.abort = reject;
        });
      }
      if (this.behaviour === 'fail' || this.behaviour === 'hold-fail') throw new Error('connection refused');
    } finally {
      this.pool.inFlight--;
    }
    // A flapping backend dies right after it came up.
    if (this.behaviour === 'flap') setImmediate(() => this.emit('closed', 'process exited with code 1'));
  }
  async close(): Promise<void> {
    this.closed = true;
    // Like a real transport: closing fails a connect in progress.
    this.abort?.(new Error('connection closed'));
  }
}

class FakePool {
  created: Array<{ conn: FakeConn; at: number }> = [];
  attached = new Set<string>();
  behaviour: Record<string, Behaviour> = {};
  inFlight = 0;
  maxInFlight = 0;
  create(name: string, spec: BackendSpec): FakeConn {
    const conn = new FakeConn(name, spec, this.behaviour[name] ?? 'ok', this);
    this.created.push({ conn, at: Date.now() });
    return conn;
  }
  attach(conn: FakeConn): void {
    this.attached.add(conn.name);
  }
  detach(name: string): void {
    this.attached.delete(name);
  }
  createdFor(name: string): FakeConn[] {
    return this.created.filter((c) => c.conn.name === name).map((c) => c.conn);
  }
}

function loop(opts: Partial<ReconcilerOptions> = {}) {
  const pool = new FakePool();
  const events = new EventBus(10_000);
  const reconciler = new Reconciler(pool as unknown as ServingBackends, events, createLogger({ level: 'silent' }), {
    concurrency: 4,
    ratePerSecond: 1000,
    backoff: { initialMs: 5, maxMs: 40, jitter: 0 },
    random: () => 0.5,
    ...opts,
  });
  const waitFor = (pred: (e: EventRecord) => boolean, count = 1): Promise<EventRecord[]> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out; events: ${JSON.stringify(events.list({ limit: 10 }))}`)), 10_000);
      const check = () => {
        const hits = events.list().filter(pred);
        if (hits.length >= count) {
          clearTimeout(timer);
          off();
          resolve(hits.slice(0, count));
        }
      };
      const off = events.subscribe(() => queueMicrotask(check));
      check();
    });
  return { pool, events, reconciler, waitFor };
}

const spec = (args: string[] = ['a.js'], extra: Record<string, unknown> = {}): BackendSpec => ({
  type: 'stdio',
  command: 'node',
  args,
  enabled: true,
  ...extra,
});
const phaseTo = (backend: string, to: string) => (e: EventRecord) => e.backend === backend && e.stage === 'phase_changed' && e.details.to === to;

describe('reconciler (fake pool)', () => {
  it('is idempotent: repeated triggers and equal desired state make one connection', async () => {
    const { pool, reconciler, waitFor } = loop();
    reconciler.setDesired({ a: spec() });
    reconciler.enqueue('a');
    reconciler.enqueue('a');
    await waitFor(phaseTo('a', 'Ready'));
    // A new but equal config, and a storm of triggers.
    reconciler.setDesired({ a: spec() });
    for (let i = 0; i < 10; i++) reconciler.enqueue('a');
    const r = await reconciler.reconnect('a'); // ends with exactly one more, forced, connection
    expect(r).toEqual({ reconnected: true, error: null });
    expect(pool.createdFor('a')).toHaveLength(2);
    expect(pool.createdFor('a')[0].closed).toBe(true);
    expect(pool.attached.has('a')).toBe(true);
    const st = reconciler.states.get('a')!;
    expect(st.toRecord()).toMatchObject({ phase: 'Ready', state: 'connected', error: null });
    await reconciler.stop();
  });

  it('retries a failing backend with growing gaps up to the cap, never early', async () => {
    const { pool, reconciler, waitFor } = loop();
    pool.behaviour.a = 'fail';
    reconciler.setDesired({ a: spec() });
    const retries = await waitFor((e) => e.stage === 'retry_scheduled' && e.backend === 'a', 6);
    expect(retries.map((e) => e.details.delay_ms)).toEqual([5, 10, 20, 40, 40, 40]);
    // Each attempt started no earlier than the time its retry announced.
    const startedAt = pool.created.filter((c) => c.conn.name === 'a').map((c) => c.at);
    for (let i = 0; i < 5; i++) expect(startedAt[i + 1]).toBeGreaterThanOrEqual(Date.parse(retries[i].details.next_attempt_at as string));
    const st = reconciler.states.get('a')!;
    expect(st.phase).toBe('Failed');
    const ready = st.conditions.find((c) => c.type === 'Ready')!;
    expect(ready).toMatchObject({ status: false, reason: 'ConnectFailed' });
    expect(ready.message).toMatch(/connection refused; next attempt at \d{4}-\d\d-\d\dT.*Z \(in \d+ ms, attempt \d+\)/);
    await reconciler.stop();
  });

  it('a flapping backend (connects, then dies at once) backs off too: no hot loop', async () => {
    // Stability window = backoff_max_ms (1 s here): these connections live a few ms.
    const { pool, reconciler, waitFor } = loop({ backoff: { initialMs: 5, maxMs: 1000, jitter: 0 } });
    pool.behaviour.a = 'flap';
    reconciler.setDesired({ a: spec() });
    const retries = await waitFor((e) => e.stage === 'retry_scheduled' && e.backend === 'a', 5);
    expect(retries.map((e) => e.details.delay_ms)).toEqual([5, 10, 20, 40, 80]);
    expect(retries.every((e) => e.severity === 'warning')).toBe(true);
    expect(pool.createdFor('a').length).toBeLessThanOrEqual(6);
    await reconciler.stop();
  });

  it('a connection that stayed up past the stability window restarts backoff at the initial delay', async () => {
    const { pool, reconciler, waitFor, events } = loop();
    pool.behaviour.a = 'fail';
    reconciler.setDesired({ a: spec() });
    await waitFor((e) => e.stage === 'retry_scheduled' && e.backend === 'a', 3);
    pool.behaviour.a = 'ok';
    await waitFor(phaseTo('a', 'Ready'));
    const st = reconciler.states.get('a')!;
    expect(st.attempts).toBe(3); // kept until the connection proves stable
    st.connectedAt = Date.now() - reconciler.stableAfterMs; // pretend it has been up for the whole window
    const before = events.list().length;
    pool.behaviour.a = 'fail';
    st.conn!.emit('closed', 'process killed by SIGKILL');
    const [retry] = await waitFor((e) => Number(e.id) > before && e.stage === 'retry_scheduled');
    expect(retry.details.delay_ms).toBe(5);
    expect(st.conditions.find((c) => c.type === 'Ready')!.reason).toBe('ConnectionLost');
    await reconciler.stop();
  });

  it('manual reconnect skips the backoff wait and resets attempts', async () => {
    const { pool, reconciler, waitFor } = loop({ backoff: { initialMs: 60_000, maxMs: 60_000, jitter: 0 } });
    pool.behaviour.a = 'fail';
    reconciler.setDesired({ a: spec() });
    await waitFor((e) => e.stage === 'retry_scheduled'); // next attempt a minute away
    pool.behaviour.a = 'ok';
    expect(await reconciler.reconnect('a')).toEqual({ reconnected: true, error: null });
    expect(reconciler.states.get('a')!.attempts).toBe(0);
    pool.behaviour.a = 'fail';
    const r = await reconciler.reconnect('a');
    expect(r.reconnected).toBe(false);
    expect(r.error).toBe('connection refused');
    expect(await reconciler.reconnect('nope')).toEqual({ reconnected: false, error: 'unknown backend nope' });
    await reconciler.stop();
  });

  it('manual reconnect during a running attempt that then fails still starts backoff afresh', async () => {
    const { pool, reconciler, waitFor } = loop({ backoff: { initialMs: 5, maxMs: 1000, jitter: 0 } });
    pool.behaviour.a = 'fail';
    reconciler.setDesired({ a: spec() });
    await waitFor((e) => e.stage === 'retry_scheduled', 3);
    pool.behaviour.a = 'hold-fail';
    await waitFor((e) => e.stage === 'connecting', 4);
    const pending = reconciler.reconnect('a');
    pool.behaviour.a = 'fail';
    pool.createdFor('a')[3].release!();
    expect(await pending).toEqual({ reconnected: false, error: 'connection refused' });
    expect(pool.createdFor('a')).toHaveLength(5); // the running attempt, then the forced one at once
    const retries = (await waitFor((e) => e.stage === 'retry_scheduled', 5)).map((e) => e.details.delay_ms);
    expect(retries).toEqual([5, 10, 20, 5, 5]); // without the reset at the forced attempt the last would be 10
    await reconciler.stop();
  });

  it('new connection settings for a failed backend are tried at once, not after the old backoff', async () => {
    const { pool, reconciler, waitFor } = loop({ backoff: { initialMs: 60_000, maxMs: 60_000, jitter: 0 } });
    pool.behaviour.a = 'fail';
    reconciler.setDesired({ a: spec() });
    await waitFor((e) => e.stage === 'retry_scheduled'); // next attempt a minute away
    pool.behaviour.a = 'ok';
    reconciler.setDesired({ a: spec(['fixed.js']) });
    await waitFor(phaseTo('a', 'Ready'));
    expect(pool.createdFor('a').map((c) => (c.spec as StdioBackendSpec).args)).toEqual([['a.js'], ['fixed.js']]);
    await reconciler.stop();
  });

  it('a config change to connection settings reconnects; filters, group, labels do not', async () => {
    const { pool, reconciler, waitFor, events } = loop();
    reconciler.setDesired({ a: spec(), b: spec() });
    await waitFor(phaseTo('a', 'Ready'));
    await waitFor(phaseTo('b', 'Ready'));
    const mark = events.list().length;
    reconciler.setDesired({ a: spec(['other.js']), b: spec(['a.js'], { group: 'g', labels: { x: 'y' }, filters: { tools: { include: ['echo'] } } }) });
    await waitFor((e) => Number(e.id) > mark && e.backend === 'a' && e.stage === 'connected');
    expect(pool.createdFor('a')).toHaveLength(2);
    expect((pool.createdFor('a')[1].spec as StdioBackendSpec).args).toEqual(['other.js']);
    expect(pool.createdFor('b')).toHaveLength(1);
    expect(reconciler.states.get('b')!.spec.group).toBe('g');
    expect(events.list().some((e) => Number(e.id) > mark && e.backend === 'a' && e.stage === 'reconnect')).toBe(true);
    expect(events.list().filter((e) => Number(e.id) > mark && e.backend === 'b')).toEqual([]);
    await reconciler.stop();
  });

  it('removal disconnects and forgets; disabling keeps the record in Pending', async () => {
    const { pool, reconciler, waitFor } = loop();
    reconciler.setDesired({ a: spec(), b: spec() });
    await waitFor(phaseTo('a', 'Ready'));
    await waitFor(phaseTo('b', 'Ready'));
    reconciler.setDesired({ b: spec(['a.js'], { enabled: false }) });
    await waitFor((e) => e.stage === 'removed' && e.backend === 'a');
    await waitFor(phaseTo('b', 'Pending'));
    expect(reconciler.states.has('a')).toBe(false);
    expect(pool.createdFor('a')[0].closed).toBe(true);
    expect(pool.attached.size).toBe(0);
    const b = reconciler.states.get('b')!;
    expect(b.conditions.find((c) => c.type === 'Ready')).toMatchObject({ status: false, reason: 'Disabled' });
    expect(await reconciler.reconnect('b')).toEqual({ reconnected: false, error: 'b is disabled in config' });
    await reconciler.stop();
  });

  it('a removal during a connect attempt waits for it, then cleans up', async () => {
    const { pool, reconciler, waitFor } = loop();
    pool.behaviour.a = 'hold';
    reconciler.setDesired({ a: spec() });
    await waitFor((e) => e.stage === 'connecting' && e.backend === 'a');
    reconciler.setDesired({});
    await new Promise((r) => setImmediate(r));
    expect(reconciler.states.has('a')).toBe(true); // busy: one action per backend at a time
    pool.createdFor('a')[0].release!();
    await waitFor((e) => e.stage === 'removed' && e.backend === 'a');
    expect(pool.createdFor('a')[0].closed).toBe(true);
    expect(pool.attached.size).toBe(0);
    await reconciler.stop();
  });

  it('runs actions within the concurrency limit', async () => {
    const { pool, reconciler, waitFor } = loop({ concurrency: 2 });
    for (const n of ['a', 'b', 'c', 'd', 'e']) pool.behaviour[n] = 'hold';
    reconciler.setDesired({ a: spec(), b: spec(), c: spec(), d: spec(), e: spec() });
    for (let done = 0; done < 5; done++) {
      await waitFor((e) => e.stage === 'connecting', done + 1);
      // Only ever two connects in flight: release the oldest held one.
      expect(pool.inFlight).toBeLessThanOrEqual(2);
      const held = pool.created.find((c) => c.conn.release && !(c.conn as { released?: boolean }).released)!;
      (held.conn as { released?: boolean }).released = true;
      held.conn.release!();
    }
    for (const n of ['a', 'b', 'c', 'd', 'e']) await waitFor(phaseTo(n, 'Ready'));
    expect(pool.maxInFlight).toBe(2);
    await reconciler.stop();
  });

  it('starts no more than rate_limit_per_s actions per second', async () => {
    const { pool, reconciler, waitFor } = loop({ concurrency: 10, ratePerSecond: 2 });
    reconciler.setDesired({ a: spec(), b: spec(), c: spec() });
    for (const n of ['a', 'b', 'c']) await waitFor(phaseTo(n, 'Ready'));
    const at = pool.created.map((c) => c.at);
    // The third start had to wait for the next one-second window (a lower bound the limiter guarantees).
    expect(at[2] - at[0]).toBeGreaterThanOrEqual(900);
    await reconciler.stop();
  });

  it('stop() does not wait for a hanging connect: it closes it', async () => {
    const { pool, reconciler, waitFor } = loop();
    pool.behaviour.a = 'hold'; // never released
    reconciler.setDesired({ a: spec() });
    await waitFor((e) => e.stage === 'connecting');
    await reconciler.stop();
    expect(pool.createdFor('a')[0].closed).toBe(true);
    expect(reconciler.states.get('a')!.conn).toBeUndefined();
    expect(reconciler.pendingActions).toBe(0);
  });

  it('stop() releases a pending reconnect and schedules nothing more', async () => {
    const { pool, reconciler, waitFor } = loop();
    pool.behaviour.a = 'hold';
    reconciler.setDesired({ a: spec() });
    await waitFor((e) => e.stage === 'connecting');
    const pending = reconciler.reconnect('a');
    const stopped = reconciler.stop();
    pool.createdFor('a')[0].release!();
    await stopped;
    await expect(pending).resolves.toMatchObject({ reconnected: false });
    expect(pool.createdFor('a')).toHaveLength(1);
    expect(pool.createdFor('a')[0].closed).toBe(true);
  });
});
