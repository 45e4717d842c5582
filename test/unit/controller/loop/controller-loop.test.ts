/**
 * The reconcile loop (controller/loop/control-loop.ts) against an in-memory
 * serving set and a fake clock: no processes, no network, no real waiting.
 * Connections are fakes whose behaviour a test sets per backend (ok, fail,
 * flap, hold until released, die silently). Time only moves when a test
 * moves it, so "never early" and "within one resync" are exact.
 */
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ControlLoop, type LoopPolicy } from '../../../../controller/loop/control-loop.js';
import { EventBus } from '../../../../controller/event-bus.js';
import { DesiredState } from '../../../../controller/config/desired-state.js';
import { createStatusStore } from '../../../../controller/status/status-store.js';
import { silentLogger } from '../../../../runtime/observability/logging/logger.js';
import type { BackendSpec, StdioBackendSpec } from '../../../../schemas/config.js';
import type { EventRecord } from '../../../../schemas/records.js';

type Behaviour = 'ok' | 'fail' | 'flap' | 'hold' | 'hold-fail';

class FakeConn extends EventEmitter<{ closed: [string]; catalog: [] }> {
  catalog = { tools: [] as unknown[], resources: [] as unknown[], prompts: [] as unknown[] };
  pid = undefined;
  closed = false;
  endedReason?: string;
  createdAt = Date.now();
  release?: () => void;
  private abort?: (err: Error) => void;
  constructor(
    readonly name: string,
    readonly spec: BackendSpec,
    private readonly behaviour: Behaviour,
    private readonly serving: FakeServing,
  ) {
    super();
  }
  async connect(): Promise<void> {
    this.serving.inFlight++;
    this.serving.maxInFlight = Math.max(this.serving.maxInFlight, this.serving.inFlight);
    try {
      if (this.behaviour === 'hold' || this.behaviour === 'hold-fail') {
        await new Promise<void>((resolve, reject) => {
          this.release = resolve;
          this.abort = reject;
        });
      }
      if (this.behaviour === 'fail' || this.behaviour === 'hold-fail') throw new Error('connection refused');
    } finally {
      this.serving.inFlight--;
    }
    // A flapping backend dies right after it came up.
    if (this.behaviour === 'flap') setTimeout(() => this.die('process exited with code 1'), 1);
  }
  async ping(): Promise<number> {
    return 1;
  }
  /** The process ended: the transport reports it. */
  die(reason: string): void {
    this.endedReason = reason;
    this.emit('closed', reason);
  }
  /** The process ended but nothing told the gateway (a missed event). */
  dieSilently(reason: string): void {
    this.endedReason = reason;
  }
  async close(): Promise<void> {
    this.closed = true;
    // Like a real transport: closing fails a connect in progress.
    this.abort?.(new Error('connection closed'));
  }
}

class FakeServing extends EventEmitter<{ routes: [table: unknown, change: { verdicts: readonly string[] }] }> {
  created: FakeConn[] = [];
  attached = new Set<string>();
  behaviour: Record<string, Behaviour> = {};
  rejected = new Map<string, string>();
  inFlight = 0;
  maxInFlight = 0;
  create(name: string, spec: BackendSpec): FakeConn {
    const conn = new FakeConn(name, spec, this.behaviour[name] ?? 'ok', this);
    this.created.push(conn);
    return conn;
  }
  attach(conn: FakeConn): void {
    this.attached.add(conn.name);
  }
  detach(name: string): void {
    this.attached.delete(name);
  }
  rejection(name: string): string | null {
    return this.rejected.get(name) ?? null;
  }
  refresh(): void {}
  createdFor(name: string): FakeConn[] {
    return this.created.filter((c) => c.name === name);
  }
}

const spec = (args: string[] = ['a.js'], extra: Record<string, unknown> = {}): BackendSpec => ({
  type: 'stdio',
  command: 'node',
  args,
  enabled: true,
  ...extra,
});

function policy(over: { backoff?: Partial<LoopPolicy['backoff']>; queue?: Partial<LoopPolicy['queue']>; resyncMs?: number } = {}): LoopPolicy {
  return {
    queue: { concurrency: 4, ratePerSecond: 1000, ...over.queue },
    backoff: { initialMs: 5, maxMs: 40, jitter: 0, ...over.backoff },
    health: { intervalMs: 3_600_000, timeoutMs: 1000, degradedLatencyMs: 500 },
    resyncMs: over.resyncMs ?? 3_600_000,
  };
}

function loop(p: LoopPolicy = policy()) {
  const serving = new FakeServing();
  const events = new EventBus(10_000);
  const desired = new DesiredState({}, { strategy: 'prefix', separator: '_' });
  const l = new ControlLoop<FakeConn>({ desired, status: createStatusStore(events), serving, events, log: silentLogger(), policy: p });
  l.start();
  const since = (mark: number, pred: (e: EventRecord) => boolean) => events.list().filter((e) => Number(e.id) > mark && pred(e));
  const mark = () => Number(events.list().at(-1)?.id ?? 0);
  return { loop: l, serving, events, since, mark };
}

/** Lets promises and due timers run without moving the clock. */
const settle = async () => {
  for (let i = 0; i < 5; i++) await vi.advanceTimersByTimeAsync(0);
};

const phaseOf = (l: ControlLoop<FakeConn>, name: string) => l.status.get(name)?.phase;
const retries = (events: EventBus, name = 'a') => events.list().filter((e) => e.stage === 'retry_scheduled' && e.backend === name);

describe('control loop (in-memory backends, fake clock)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is idempotent: repeated triggers and an equal desired state make one connection', async () => {
    const { loop: l, serving } = loop();
    l.apply({ a: spec() });
    l.enqueue('a');
    l.enqueue('a');
    await settle();
    expect(phaseOf(l, 'a')).toBe('Ready');
    // A new but equal config, and a storm of triggers.
    l.apply({ a: spec() });
    for (let i = 0; i < 10; i++) l.enqueue('a');
    await settle();
    expect(serving.createdFor('a')).toHaveLength(1);
    const r = l.reconnect('a'); // ends with exactly one more, forced, connection
    await settle();
    expect(await r).toEqual({ name: 'a', reconnected: true, error: null });
    expect(serving.createdFor('a')).toHaveLength(2);
    expect(serving.createdFor('a')[0]!.closed).toBe(true);
    expect(serving.attached.has('a')).toBe(true);
    expect(l.status.get('a')).toMatchObject({ phase: 'Ready', state: 'connected', error: null });
    await l.shutdown();
  });

  it('retries a failing backend with growing gaps up to the cap, and never before the announced time', async () => {
    const { loop: l, serving, events } = loop();
    serving.behaviour.a = 'fail';
    l.apply({ a: spec() });
    await settle();
    for (let i = 0; i < 6; i++) {
      const retry = retries(events).at(-1)!;
      const attempts = serving.createdFor('a').length;
      const wait = Date.parse(retry.details.next_attempt_at as string) - Date.now();
      await vi.advanceTimersByTimeAsync(wait - 1);
      // Events (a resync, a probe, a reload) may ask for a look at any time: none brings the attempt forward.
      l.enqueue('a');
      await settle();
      expect(serving.createdFor('a'), `retry ${i + 1} one ms early`).toHaveLength(attempts);
      await vi.advanceTimersByTimeAsync(1);
      await settle();
      expect(serving.createdFor('a'), `retry ${i + 1} on time`).toHaveLength(attempts + 1);
    }
    expect(retries(events).map((e) => e.details.delay_ms)).toEqual([5, 10, 20, 40, 40, 40, 40]);
    const st = l.status.get('a')!;
    expect(st.phase).toBe('Failed');
    const ready = st.conditions.find((c) => c.type === 'Ready')!;
    expect(ready).toMatchObject({ status: false, reason: 'ConnectFailed' });
    expect(ready.message).toMatch(/connection refused; next attempt at \d{4}-\d\d-\d\dT.*Z \(in \d+ ms, attempt \d+\)/);
    await l.shutdown();
  });

  it('backoff is per name: one failing backend does not slow another', async () => {
    const { loop: l, serving, events } = loop();
    serving.behaviour.a = 'fail';
    l.apply({ a: spec(), b: spec(['b.js']) });
    await settle();
    await vi.advanceTimersByTimeAsync(100);
    expect(retries(events, 'a').length).toBeGreaterThanOrEqual(3);
    expect(retries(events, 'b')).toEqual([]);
    expect(l.backoff.failures('b')).toBe(0);
    expect(phaseOf(l, 'b')).toBe('Ready');
    await l.shutdown();
  });

  it('a flapping backend (connects, then dies at once) backs off too: no hot loop', async () => {
    // Stability window = backoff_max_ms (1 s here): these connections live a millisecond.
    const { loop: l, serving, events } = loop(policy({ backoff: { maxMs: 1000 } }));
    serving.behaviour.a = 'flap';
    l.apply({ a: spec() });
    await settle();
    await vi.advanceTimersByTimeAsync(200);
    expect(
      retries(events)
        .slice(0, 5)
        .map((e) => e.details.delay_ms),
    ).toEqual([5, 10, 20, 40, 80]);
    expect(retries(events).every((e) => e.severity === 'warning')).toBe(true);
    expect(serving.createdFor('a').length).toBeLessThanOrEqual(6);
    await l.shutdown();
  });

  it('a connection that stayed up past the stability window starts backoff afresh when lost', async () => {
    const { loop: l, serving, events, mark } = loop();
    serving.behaviour.a = 'fail';
    l.apply({ a: spec() });
    await settle();
    await vi.advanceTimersByTimeAsync(5 + 10); // two retries
    serving.behaviour.a = 'ok';
    await vi.advanceTimersByTimeAsync(20);
    expect(phaseOf(l, 'a')).toBe('Ready');
    expect(l.backoff.failures('a')).toBe(3); // kept until the connection proves stable
    await vi.advanceTimersByTimeAsync(40); // the stability window (backoff_max_ms)
    expect(l.backoff.failures('a')).toBe(0);
    const before = mark();
    serving.behaviour.a = 'fail';
    serving.createdFor('a').at(-1)!.die('process killed by SIGKILL');
    await settle();
    const retry = events.list().find((e) => Number(e.id) > before && e.stage === 'retry_scheduled')!;
    expect(retry.details.delay_ms).toBe(5);
    expect(l.status.get('a')!.conditions.find((c) => c.type === 'Ready')!.reason).toBe('ConnectionLost');
    await l.shutdown();
  });

  it('manual reconnect skips the backoff wait and starts it afresh; a failing one reports why', async () => {
    const { loop: l, serving } = loop(policy({ backoff: { initialMs: 60_000, maxMs: 60_000 } }));
    serving.behaviour.a = 'fail';
    l.apply({ a: spec() });
    await settle(); // next attempt a minute away
    serving.behaviour.a = 'ok';
    const ok = l.reconnect('a');
    await settle();
    expect(await ok).toEqual({ name: 'a', reconnected: true, error: null });
    expect(l.backoff.failures('a')).toBe(0);
    serving.behaviour.a = 'fail';
    const failed = l.reconnect('a');
    await settle();
    expect(await failed).toEqual({ name: 'a', reconnected: false, error: 'connection refused' });
    expect(await l.reconnect('nope')).toEqual({ name: 'nope', reconnected: false, error: 'unknown backend nope' });
    await l.shutdown();
  });

  it('a manual reconnect during a running attempt that then fails starts backoff afresh', async () => {
    const { loop: l, serving, events } = loop(policy({ backoff: { maxMs: 1000 } }));
    serving.behaviour.a = 'fail';
    l.apply({ a: spec() });
    await settle();
    await vi.advanceTimersByTimeAsync(5 + 10);
    serving.behaviour.a = 'hold-fail';
    await vi.advanceTimersByTimeAsync(20); // the fourth attempt is now held
    expect(serving.createdFor('a')).toHaveLength(4);
    const pending = l.reconnect('a');
    serving.behaviour.a = 'fail';
    serving.createdFor('a')[3]!.release!();
    await settle();
    expect(await pending).toEqual({ name: 'a', reconnected: false, error: 'connection refused' });
    expect(serving.createdFor('a')).toHaveLength(5); // the running attempt, then the forced one at once
    expect(retries(events).map((e) => e.details.delay_ms)).toEqual([5, 10, 20, 5, 5]); // without the fresh start: 40, then 5
    await l.shutdown();
  });

  it('reconnect requests that come while one is queued or running join it: fifty make one new connection', async () => {
    const { loop: l, serving } = loop();
    l.apply({ a: spec() });
    await settle();
    expect(serving.createdFor('a')).toHaveLength(1);
    serving.behaviour.a = 'hold';
    // Twenty while the reconnect is queued, twenty while its connect runs, ten as the connect returns.
    const queued = Array.from({ length: 20 }, () => l.reconnect('a'));
    await settle();
    const attempt = serving.createdFor('a')[1]!;
    expect(attempt.release, 'the reconnect is connecting').toBeTypeOf('function');
    const running = Array.from({ length: 20 }, () => l.reconnect('a'));
    await settle();
    attempt.release!();
    serving.behaviour.a = 'ok'; // a second reconnect, were there one, would not wait
    const late = Array.from({ length: 10 }, () => l.reconnect('a'));
    await settle();
    const answers = await Promise.all([...queued, ...running, ...late]);
    expect(answers).toEqual(Array.from({ length: 50 }, () => ({ name: 'a', reconnected: true, error: null })));
    expect(serving.createdFor('a')).toHaveLength(2);
    await l.shutdown();
  });

  it('a reconnect asked for after the last one was answered is a new one, and a failed one answers all who joined it', async () => {
    const { loop: l, serving } = loop(policy({ backoff: { initialMs: 60_000, maxMs: 60_000 } }));
    l.apply({ a: spec() });
    await settle();
    serving.behaviour.a = 'hold-fail';
    const first = Array.from({ length: 5 }, () => l.reconnect('a'));
    await settle();
    serving.createdFor('a')[1]!.release!();
    await settle();
    expect(new Set((await Promise.all(first)).map((a) => JSON.stringify(a)))).toEqual(
      new Set([JSON.stringify({ name: 'a', reconnected: false, error: 'connection refused' })]),
    );
    serving.behaviour.a = 'ok';
    const second = l.reconnect('a');
    await settle();
    expect(await second).toEqual({ name: 'a', reconnected: true, error: null });
    expect(serving.createdFor('a')).toHaveLength(3);
    await l.shutdown();
  });

  it('new connection settings for a failed backend are tried at once, not after the old backoff', async () => {
    const { loop: l, serving } = loop(policy({ backoff: { initialMs: 60_000, maxMs: 60_000 } }));
    serving.behaviour.a = 'fail';
    l.apply({ a: spec() });
    await settle(); // next attempt a minute away
    serving.behaviour.a = 'ok';
    l.apply({ a: spec(['fixed.js']) });
    await settle();
    expect(phaseOf(l, 'a')).toBe('Ready');
    expect(serving.createdFor('a').map((c) => (c.spec as StdioBackendSpec).args)).toEqual([['a.js'], ['fixed.js']]);
    await l.shutdown();
  });

  it('a change to connection settings reconnects; filters, group and labels do not', async () => {
    const { loop: l, serving, since, mark } = loop();
    l.apply({ a: spec(), b: spec() });
    await settle();
    const m = mark();
    const diff = l.apply({ a: spec(['other.js']), b: spec(['a.js'], { group: 'g', labels: { x: 'y' }, filters: { tools: { deny: ['echo'] } } }) });
    expect(diff).toEqual({ added: [], removed: [], changed: ['a', 'b'] });
    await settle();
    expect(serving.createdFor('a')).toHaveLength(2);
    expect((serving.createdFor('a')[1]!.spec as StdioBackendSpec).args).toEqual(['other.js']);
    expect(serving.createdFor('b')).toHaveLength(1);
    expect(l.status.get('b')!.spec.group).toBe('g');
    expect(since(m, (e) => e.backend === 'a' && e.stage === 'reconnect')).toHaveLength(1);
    expect(since(m, (e) => e.backend === 'b')).toEqual([]);
    await l.shutdown();
  });

  it('removal disconnects and forgets; disabling keeps the record in Pending', async () => {
    const { loop: l, serving } = loop();
    l.apply({ a: spec(), b: spec() });
    await settle();
    l.apply({ b: spec(['a.js'], { enabled: false }) });
    await settle();
    expect(l.status.get('a')).toBeUndefined();
    expect(serving.createdFor('a')[0]!.closed).toBe(true);
    expect(serving.attached.size).toBe(0);
    expect(phaseOf(l, 'b')).toBe('Pending');
    expect(l.status.get('b')!.conditions.find((c) => c.type === 'Ready')).toMatchObject({ status: false, reason: 'Disabled' });
    expect(await l.reconnect('b')).toEqual({ name: 'b', reconnected: false, error: 'b is disabled in config' });
    await l.shutdown();
  });

  it('a removal during a connect attempt waits for it, then cleans up', async () => {
    const { loop: l, serving, events } = loop();
    serving.behaviour.a = 'hold';
    l.apply({ a: spec() });
    await settle();
    l.apply({});
    await settle();
    expect(l.status.get('a')).toBeDefined(); // one reconcile per backend at a time
    serving.createdFor('a')[0]!.release!();
    await settle();
    expect(events.list().some((e) => e.stage === 'removed' && e.backend === 'a')).toBe(true);
    expect(serving.createdFor('a')[0]!.closed).toBe(true);
    expect(serving.attached.size).toBe(0);
    await l.shutdown();
  });

  it('runs reconciles within the concurrency limit', async () => {
    const { loop: l, serving } = loop(policy({ queue: { concurrency: 2 } }));
    for (const n of ['a', 'b', 'c', 'd', 'e']) serving.behaviour[n] = 'hold';
    l.apply({ a: spec(), b: spec(), c: spec(), d: spec(), e: spec() });
    for (let released = 0; released < 5; released++) {
      await settle();
      expect(serving.inFlight).toBeLessThanOrEqual(2);
      serving.created.find((c) => c.release && !c.closed && l.status.get(c.name)?.phase === 'Initializing')!.release!();
    }
    await settle();
    for (const n of ['a', 'b', 'c', 'd', 'e']) expect(phaseOf(l, n)).toBe('Ready');
    expect(serving.maxInFlight).toBe(2);
    await l.shutdown();
  });

  it('starts no more than rate_limit_per_s reconciles per second', async () => {
    const { loop: l, serving } = loop(policy({ queue: { concurrency: 10, ratePerSecond: 2 } }));
    l.apply({ a: spec(), b: spec(), c: spec() });
    await settle();
    expect(serving.created).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(999);
    expect(serving.created).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    await settle();
    expect(serving.created).toHaveLength(3);
    await l.shutdown();
  });

  it('a periodic resync notices what no event reported (a backend that died silently)', async () => {
    const { loop: l, serving } = loop(policy({ resyncMs: 1000, backoff: { initialMs: 60_000, maxMs: 60_000 } }));
    l.apply({ a: spec() });
    await settle();
    expect(phaseOf(l, 'a')).toBe('Ready');
    await vi.advanceTimersByTimeAsync(250); // the last look a connect asks for: its catalog has settled
    serving.createdFor('a')[0]!.dieSilently('process gone');
    await vi.advanceTimersByTimeAsync(749);
    expect(phaseOf(l, 'a')).toBe('Ready'); // nobody said anything yet
    await vi.advanceTimersByTimeAsync(1);
    await settle();
    expect(phaseOf(l, 'a')).toBe('Failed');
    expect(l.status.get('a')!.error).toBe('process gone');
    expect(serving.attached.has('a')).toBe(false);
    await l.shutdown();
  });

  it('the route table’s conflict verdict is recorded: Failed with NameConflict, then Ready again', async () => {
    const { loop: l, serving } = loop();
    l.apply({ a: spec() });
    await settle();
    serving.rejected.set('a', "name conflict: tool 'x' is also exposed by 'b'");
    l.routesChanged({ verdicts: ['a'] });
    await settle();
    expect(l.status.get('a')!.conditions.find((c) => c.type === 'Ready')).toMatchObject({ status: false, reason: 'NameConflict' });
    expect(phaseOf(l, 'a')).toBe('Failed');
    serving.rejected.delete('a');
    l.routesChanged({ verdicts: ['a'] });
    await settle();
    expect(phaseOf(l, 'a')).toBe('Ready');
    await l.shutdown();
  });

  it('a new route table re-queues only the backends whose conflict verdict changed', async () => {
    const { loop: l, serving } = loop();
    l.apply({ a: spec(), b: spec(['b.js']) });
    await settle();
    serving.rejected.set('a', 'verdict for a');
    serving.rejected.set('b', 'verdict for b');
    l.routesChanged({ verdicts: ['b'] });
    await settle();
    expect(phaseOf(l, 'b')).toBe('Failed');
    // a was not named: it is not looked at again, so its record still says Ready.
    expect(phaseOf(l, 'a')).toBe('Ready');
    await l.shutdown();
  });

  it('a catalog is announced once its counts have settled, once per change, by the reconcile a catalog change enqueues', async () => {
    const { loop: l, serving, since, mark } = loop();
    const announced = (from: number) => since(from, (e) => e.stage === 'catalog' && e.backend === 'a').map((e) => e.details);
    l.apply({ a: spec() });
    await settle();
    const conn = serving.createdFor('a')[0]!;
    const start = mark();
    // Tools registered after initialization, announced by list_changed in a burst: each change restarts the quiet time.
    await vi.advanceTimersByTimeAsync(200);
    conn.catalog.tools = ['t1'];
    conn.emit('catalog');
    await vi.advanceTimersByTimeAsync(200);
    conn.catalog.tools = ['t1', 't2'];
    conn.emit('catalog');
    await vi.advanceTimersByTimeAsync(249);
    expect(announced(start)).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await settle();
    expect(announced(start)).toEqual([{ tools: 2, resources: 0, prompts: 0 }]);
    // A change that leaves the counts as announced says nothing; new counts are announced once.
    const again = mark();
    conn.emit('catalog');
    await vi.advanceTimersByTimeAsync(1000);
    expect(announced(again)).toEqual([]);
    conn.catalog.prompts = ['p'];
    conn.emit('catalog');
    await vi.advanceTimersByTimeAsync(1000);
    expect(announced(again)).toEqual([{ tools: 2, resources: 0, prompts: 1 }]);
    // A new connection announces its own catalog; the old one's changes no longer count.
    const reconnected = mark();
    await settle();
    const r = l.reconnect('a');
    await settle();
    await r;
    conn.catalog.tools = [];
    conn.emit('catalog');
    await vi.advanceTimersByTimeAsync(1000);
    expect(announced(reconnected)).toEqual([{ tools: 0, resources: 0, prompts: 0 }]);
    await l.shutdown();
  });

  it('a catalog announcement waits its turn in the work queue: no timer writes status beside the reconciler', async () => {
    const { loop: l, serving, since } = loop(policy({ queue: { concurrency: 1 } }));
    serving.behaviour.b = 'hold';
    l.apply({ a: spec(), b: spec(['b.js']) });
    await settle();
    expect(phaseOf(l, 'a')).toBe('Ready');
    // b's connect holds the only worker: a's reconcile, and so its announcement, cannot run.
    await vi.advanceTimersByTimeAsync(2000);
    expect(since(0, (e) => e.stage === 'catalog')).toEqual([]);
    serving.createdFor('b')[0]!.release!();
    await settle();
    expect(since(0, (e) => e.stage === 'catalog').map((e) => e.backend)).toContain('a');
    await l.shutdown();
  });

  it('shutdown does not wait for a hanging connect: it closes it, releases a pending reconnect, schedules nothing', async () => {
    const { loop: l, serving } = loop();
    serving.behaviour.a = 'hold'; // never released
    l.apply({ a: spec() });
    await settle();
    const pending = l.reconnect('a');
    await l.shutdown();
    await expect(pending).resolves.toMatchObject({ reconnected: false });
    expect(serving.createdFor('a')).toHaveLength(1);
    expect(serving.createdFor('a')[0]!.closed).toBe(true);
    expect(l.queueDepth).toBe(0);
    expect(phaseOf(l, 'a')).toBe('ShuttingDown');
    await vi.advanceTimersByTimeAsync(120_000);
    expect(serving.created).toHaveLength(1);
  });
});
