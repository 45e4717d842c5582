/**
 * The reconcile loop, assembled: desired state, the keyed work queue that
 * runs the reconciler (p-queue underneath), per-name backoff, the health
 * prober and a periodic resync. Everything that happens only enqueues names:
 * a config change, a probe result, a lost connection, a reconnect request, a
 * catalog change, a new route table, the resync tick. The reconciler decides,
 * and is the only status writer.
 *
 * It knows nothing of files, HTTP or logging setup (GatewayController wires
 * those), so tests drive it with an in-memory serving set and a fake clock.
 */
import type { Logger } from '../../runtime/observability/logging/logger.js';
import type { BackendSpec } from '../../schemas/config.js';
import type { EventBus } from '../event-bus.js';
import type { DesiredState, ConfigDiff } from '../config/desired-state.js';
import type { StatusView, StatusWriter } from '../status/status-store.js';
import type { ConflictPolicy } from '../../runtime/routing/route-table.js';
import { HealthProber, type HealthPolicy } from '../health/health-prober.js';
import { BackoffLimiter, type BackoffPolicy } from './backoff.js';
import { WorkQueue, type QueueLimits } from './work-queue.js';
import { Reconciler, type BackendHandle, type ServingSet } from './reconciler.js';
import type { ContainerManagerPort } from './container-step.js';

export interface LoopPolicy {
  queue: QueueLimits;
  backoff: BackoffPolicy;
  health: HealthPolicy;
  /** Every backend is reconciled at least this often (ms), so a missed event is corrected. */
  resyncMs: number;
}

/** A serving set that follows desired state. */
export interface ObservableServingSet<C extends BackendHandle> extends ServingSet<C> {
  /** Desired state changed: rebuild the route table from it. */
  refresh(): void;
}

export interface ControlLoopOptions<C extends BackendHandle> {
  /** What the operator wants; shared with the serving set, which reads filters, renames and the conflict policy from it. */
  desired: DesiredState;
  /** Observed state: the view everyone may read, the writer only the reconciler gets. */
  status: { view: StatusView; writer: StatusWriter };
  serving: ObservableServingSet<C>;
  events: EventBus;
  log: Logger;
  policy: LoopPolicy;
  /** The container runtime for stdio backends (absent: they run as bare processes). */
  containers?: ContainerManagerPort;
  /** Jitter source for backoff; tests pass a fixed one. */
  random?: () => number;
  now?: () => number;
}

export interface ReconnectResult {
  name: string;
  reconnected: boolean;
  error: string | null;
}

export class ControlLoop<C extends BackendHandle> {
  readonly desired: DesiredState;
  /** Observed state, read-only: the reconciler holds the only writer. */
  readonly status: StatusView;
  readonly health: HealthProber;
  readonly backoff: BackoffLimiter;
  private readonly queue: WorkQueue;
  private readonly reconciler: Reconciler<C>;
  private resyncTimer?: NodeJS.Timeout;
  private policy: LoopPolicy;
  private running = false;

  constructor(private readonly o: ControlLoopOptions<C>) {
    this.policy = o.policy;
    const { view, writer } = o.status;
    this.status = view;
    this.desired = o.desired;
    this.backoff = new BackoffLimiter(o.policy.backoff, o.random);
    this.queue = new WorkQueue((name) => this.process(name), o.policy.queue, o.now);
    this.health = new HealthProber(
      () => this.reconciler.connections(),
      (name) => this.queue.add(name),
      o.policy.health,
    );
    this.reconciler = new Reconciler({
      desired: this.desired,
      serving: o.serving,
      status: writer,
      view,
      backoff: this.backoff,
      prober: this.health,
      enqueue: (name) => this.queue.add(name),
      containers: o.containers,
      log: o.log,
      now: o.now,
    });
  }

  /**
   * A watch: a new route table (delivered by app/route-listeners.ts) can
   * change a backend's conflict verdict; those backends are looked at again
   * once the loop runs (nothing may start a backend before start()).
   */
  routesChanged(change: { verdicts: readonly string[] }): void {
    if (this.running) for (const name of change.verdicts) this.queue.add(name);
  }

  start(): void {
    this.running = true;
    this.enqueueAll();
    this.health.start();
    this.armResync();
  }

  /** New desired backends, conflict policy and tuning; returns the diff, whose names are exactly the ones enqueued. */
  apply(backends: Record<string, BackendSpec>, conflicts: ConflictPolicy = this.desired.conflictPolicy, policy: LoopPolicy = this.policy): ConfigDiff {
    const diff = this.desired.set(backends, conflicts);
    this.o.serving.refresh();
    this.backoff.setPolicy(policy.backoff);
    this.health.setPolicy(policy.health);
    this.queue.setLimits(policy.queue);
    const resync = policy.resyncMs !== this.policy.resyncMs;
    this.policy = policy;
    if (resync && this.running) this.armResync();
    for (const name of [...diff.added, ...diff.removed, ...diff.changed]) this.queue.add(name);
    return diff;
  }

  /** Asks for a name to be reconciled (events, tests). */
  enqueue(name: string): void {
    this.queue.add(name);
  }

  /**
   * A manual reconnect: recorded in desired state, where a request that
   * comes while one is queued or running joins it; resolves once the connect
   * attempt that answers the reconnect it joined has ended, with its outcome.
   */
  async reconnect(name: string): Promise<ReconnectResult> {
    const spec = this.desired.get(name);
    if (!spec) return { name, reconnected: false, error: `unknown backend ${name}` };
    if (spec.enabled === false) return { name, reconnected: false, error: `${name} is disabled in config` };
    const request = this.desired.requestReconnect(name, this.status.get(name)?.reconnectsAnswered ?? 0);
    this.o.events.emit({ stage: 'reconnect', backend: name, message: `manual reconnect of ${name} requested`, details: { trigger: 'manual' } });
    this.queue.add(name);
    const st = await this.waitForStatus(() => {
      const s = this.status.get(name);
      if (!this.running) return s ?? 'stopped';
      return s !== undefined && s.reconnectsAnswered >= request ? s : undefined;
    });
    const record = typeof st === 'string' ? undefined : st;
    const ok = record?.phase === 'Ready' || record?.phase === 'Degraded';
    return { name, reconnected: ok, error: ok ? null : (record?.error ?? `${name} was not reconnected: the gateway is stopping`) };
  }

  /**
   * Resolves once every enabled backend has finished its first attempt
   * (Failed, or connected and through its first health check), or at the timeout.
   */
  async whenSettled(timeoutMs = 60_000): Promise<void> {
    await this.waitForStatus(
      () =>
        this.desired.names().every((name) => {
          if (this.desired.get(name)!.enabled === false) return true;
          const st = this.status.get(name);
          if (st === undefined || st.phase === 'Pending' || st.phase === 'Initializing') return false;
          return st.state !== 'connected' || st.health.last_check !== null;
        }),
      timeoutMs,
    );
  }

  /** The backend's live connection, or the attempt in progress. */
  connection(name: string): C | undefined {
    return this.reconciler.connection(name) ?? this.reconciler.attempt(name);
  }

  /** The connection serving a backend (not an attempt). */
  serving(name: string): C | undefined {
    return this.reconciler.connection(name);
  }

  /** Names waiting, delayed or being reconciled. */
  get queueDepth(): number {
    return this.queue.depth;
  }

  /** Stops acting, lets running reconciles finish (hanging connects are closed), then closes every backend. */
  async shutdown(): Promise<void> {
    this.running = false;
    clearInterval(this.resyncTimer);
    this.health.stop();
    this.reconciler.stop();
    await this.queue.shutdown();
    await this.reconciler.closeAll();
  }

  /** One turn for one name: reconcile, then requeue as it asked (or after backoff if it threw). */
  private async process(name: string): Promise<void> {
    try {
      const result = await this.reconciler.reconcile(name);
      if (result.requeueAfterMs !== undefined) this.queue.addAfter(name, result.requeueAfterMs);
      else this.backoff.forget(name);
    } catch (err) {
      const delay = this.backoff.when(name);
      this.o.log.error({ backend: name, err }, `reconcile of ${name} failed unexpectedly; trying again in ${delay} ms`);
      this.queue.addAfter(name, delay);
    }
  }

  private enqueueAll(): void {
    for (const name of new Set([...this.desired.names(), ...this.status.list().map((s) => s.name)])) this.queue.add(name);
  }

  private armResync(): void {
    clearInterval(this.resyncTimer);
    this.resyncTimer = setInterval(() => this.enqueueAll(), this.policy.resyncMs);
    this.resyncTimer.unref();
  }

  /** Resolves with the first truthy value of `probe`, checked now and after every status write (undefined at the timeout). */
  private waitForStatus<T>(probe: () => T | undefined | false, timeoutMs = 0): Promise<T | undefined> {
    return new Promise((resolve) => {
      const first = probe();
      if (first) return resolve(first);
      let timer: NodeJS.Timeout | undefined;
      const finish = (value: T | undefined) => {
        clearTimeout(timer);
        off();
        resolve(value);
      };
      const off = this.status.onChange(() => {
        const value = probe();
        if (value) finish(value);
      });
      if (timeoutMs > 0) timer = setTimeout(() => finish(undefined), timeoutMs);
    });
  }
}
