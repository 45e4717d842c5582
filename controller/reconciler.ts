/**
 * The reconcile loop. Level-triggered and idempotent: whatever happened (a
 * config change, a transport closing, a failed health check, a manual
 * reconnect, a backoff timer), the backend's name is enqueued and
 * `reconcile(name)` compares desired with observed state and acts. Actions
 * (connect, disconnect) run through a p-queue bounded in concurrency and rate.
 */
import PQueue from 'p-queue';
import type { Logger } from '../runtime/observability/logging/logger.js';
import type { BackendSpec } from '../schemas/config.js';
import type { Phase } from '../schemas/records.js';
import type { ServingBackends } from '../runtime/backends/serving-backends.js';
import type { BackendConnection } from '../runtime/backends/backend-connection.js';
import { BackendState } from './backend-state.js';
import { backoffDelay, type BackoffPolicy } from './backoff.js';
import { setCondition } from './conditions.js';
import { sameConnection } from './desired-state.js';
import type { EventBus } from './event-bus.js';

export interface ReconcilerOptions {
  concurrency: number;
  ratePerSecond: number;
  backoff: BackoffPolicy;
  /** Jitter source; tests inject a fixed one. Default Math.random. */
  random?: () => number;
  /** Called once a backend has a fresh connection in service (the controller runs its first health check). */
  onConnected?: (st: BackendState) => void;
}

export class Reconciler {
  readonly states = new Map<string, BackendState>();
  private desired = new Map<string, BackendSpec>();
  private actions: PQueue;
  /** Queues replaced by a rate-limit change; drained on stop(). */
  private readonly retiredQueues: PQueue[] = [];
  private stopped = false;
  private readonly settledWaiters = new Map<string, Array<() => void>>();

  constructor(
    private readonly pool: ServingBackends,
    private readonly events: EventBus,
    private readonly log: Logger,
    private opts: ReconcilerOptions,
  ) {
    this.actions = new PQueue({ concurrency: opts.concurrency, intervalCap: opts.ratePerSecond, interval: 1000 });
  }

  /** Replaces desired state and enqueues every backend whose state may differ. */
  setDesired(specs: Record<string, BackendSpec>, opts?: ReconcilerOptions): void {
    if (opts) {
      if (opts.ratePerSecond !== this.opts.ratePerSecond) {
        // p-queue cannot change its interval cap in place: new actions go to a new queue, running ones finish in the old.
        this.retiredQueues.push(this.actions);
        this.actions = new PQueue({ concurrency: opts.concurrency, intervalCap: opts.ratePerSecond, interval: 1000 });
      }
      this.opts = opts;
      this.actions.concurrency = opts.concurrency;
    }
    const previous = this.desired;
    const names = new Set([...previous.keys(), ...Object.keys(specs)]);
    this.desired = new Map(Object.entries(specs));
    for (const [name, spec] of this.desired) {
      const before = previous.get(name);
      const st = this.states.get(name);
      // A new connection setting deserves a fresh attempt now, not at the end of the old backoff.
      if (st && before && (!sameConnection(before, spec) || before.enabled !== spec.enabled)) {
        st.attempts = 0;
        st.nextAttemptAt = 0;
        clearTimeout(st.retryTimer);
      }
    }
    for (const name of names) this.enqueue(name);
  }

  enqueue(name: string): void {
    if (this.stopped) return;
    // Reconcile on a fresh tick: callers are often in the middle of a state change.
    queueMicrotask(() => this.reconcile(name));
  }

  /** Forces a fresh connection now, resetting backoff; resolves when the attempt has settled. */
  async reconnect(name: string): Promise<{ reconnected: boolean; error: string | null }> {
    const st = this.states.get(name);
    const desired = this.desired.get(name);
    if (!st || !desired) return { reconnected: false, error: `unknown backend ${name}` };
    if (desired.enabled === false) return { reconnected: false, error: `${name} is disabled in config` };
    st.forceReconnect = true;
    st.attempts = 0;
    st.nextAttemptAt = 0;
    clearTimeout(st.retryTimer);
    this.events.emit({ stage: 'reconnect', backend: name, message: `manual reconnect of ${name} requested`, details: { trigger: 'manual' } });
    const settled = this.waitSettled(name);
    this.enqueue(name);
    await settled;
    const ok = st.phase === 'Ready' || st.phase === 'Degraded';
    return { reconnected: ok, error: ok ? null : st.error };
  }

  /** Reports a lost connection (transport closed, process exited, health failure). */
  connectionLost(name: string, conn: BackendConnection, reason: string): void {
    const st = this.states.get(name);
    if (!st || st.conn !== conn) return;
    this.pool.detach(name);
    st.conn = undefined;
    st.connectedSpec = undefined;
    void conn.close();
    st.state = 'disconnected';
    st.error = reason;
    // Nothing is known about a connection that is gone, unless a failed check is what ended it.
    if (st.health.status !== 'unhealthy') st.health = { ...st.health, status: 'unknown', latency_ms: null };
    // A connection that stayed up for a while earns a fresh backoff; one that died young keeps climbing (no hot loop when flapping).
    if (st.connectedAt !== undefined && Date.now() - st.connectedAt >= this.stableAfterMs) st.attempts = 0;
    st.connectedAt = undefined;
    setCondition(st.conditions, 'Ready', false, 'ConnectionLost', reason);
    this.setPhase(st, 'Failed', reason, 'error');
    this.events.emit({ stage: 'disconnected', backend: name, severity: 'error', message: `${name} lost its connection: ${reason}` });
    this.scheduleRetry(st, 'ConnectionLost', reason);
  }

  /** Applies the registry's verdict on name conflicts (strategy `error`). */
  syncConflicts(rejected: Map<string, string>): void {
    for (const st of this.states.values()) {
      const verdict = st.conn ? (rejected.get(st.name) ?? null) : null;
      if (verdict === st.conflict) continue;
      st.conflict = verdict;
      if (verdict) {
        st.error = verdict;
        setCondition(st.conditions, 'Ready', false, 'NameConflict', verdict);
        this.events.emit({ stage: 'conflict', backend: st.name, severity: 'error', message: `${st.name} left out: ${verdict}` });
        this.setPhase(st, 'Failed', verdict, 'error');
      } else if (st.conn) {
        st.error = null;
        setCondition(st.conditions, 'Ready', true, 'Connected', 'conflict resolved');
        this.setPhase(st, 'Ready', 'name conflict resolved');
      }
    }
  }

  /** Phase change with its event; a no-op when the phase is unchanged. */
  setPhase(st: BackendState, phase: Phase, why: string, severity: 'info' | 'warning' | 'error' = 'info'): void {
    if (st.phase === phase) return;
    const from = st.phase;
    st.phase = phase;
    this.events.emit({ stage: 'phase_changed', backend: st.name, severity, message: `${st.name}: ${from} -> ${phase} (${why})`, details: { from, to: phase } });
  }

  /** Stops acting: no new actions, no retries. Connections are closed by the caller. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const st of this.states.values()) {
      clearTimeout(st.retryTimer);
      // A connect can take up to its connect timeout; shutdown does not wait for it: closing fails it now.
      void st.connecting?.close();
    }
    const queues = [...this.retiredQueues, this.actions];
    for (const q of queues) q.clear();
    await Promise.all(queues.map((q) => q.onIdle()));
    // Nobody waits forever for a reconnect that will not happen.
    for (const name of [...this.settledWaiters.keys()]) this.settle(name);
  }

  /** Stops acting, then takes every backend to ShuttingDown and closes its connection (ending its processes). */
  async shutdown(): Promise<void> {
    await this.stop();
    await Promise.all(
      [...this.states.values()].map(async (st) => {
        this.setPhase(st, 'ShuttingDown', 'gateway shutdown');
        const conn = st.conn;
        st.conn = undefined;
        if (conn) {
          this.pool.detach(st.name);
          st.state = 'disconnecting';
          await conn.close();
        }
        st.state = 'disconnected';
      }),
    );
  }

  /** How long a connection must stay up before a later loss starts backoff afresh. */
  get stableAfterMs(): number {
    return this.opts.backoff.maxMs;
  }

  get pendingActions(): number {
    return this.actions.size + this.actions.pending;
  }

  // --- the loop ---

  private reconcile(name: string): void {
    if (this.stopped) return;
    const desired = this.desired.get(name);
    let st = this.states.get(name);
    if (st?.busy) {
      // One action per backend at a time; look again when it is done.
      st.dirty = true;
      return;
    }
    if (!desired) {
      if (st) this.act(st, () => this.remove(st!));
      return;
    }
    if (!st) {
      st = new BackendState(name, desired);
      this.states.set(name, st);
      this.events.emit({ stage: 'registered', backend: name, message: `backend ${name} (${desired.type}) registered` });
    }
    st.spec = desired;
    if (desired.enabled === false) {
      clearTimeout(st.retryTimer);
      st.forceReconnect = false;
      if (st.conn) this.act(st, () => this.disconnect(st, 'disabled in config', 'Disabled'));
      else {
        st.state = 'disconnected';
        st.error = null;
        setCondition(st.conditions, 'Ready', false, 'Disabled', 'disabled in config');
        this.setPhase(st, 'Pending', 'disabled in config');
        this.settle(name);
      }
      return;
    }
    if (st.conn) {
      if (st.forceReconnect || !sameConnection(st.connectedSpec!, desired)) {
        const why = st.forceReconnect ? 'manual reconnect' : 'configuration changed';
        if (!st.forceReconnect) {
          this.events.emit({
            stage: 'reconnect',
            backend: name,
            message: `${name} reconnects: its connection settings changed`,
            details: { trigger: 'config' },
          });
        }
        this.act(st, async () => {
          await this.disconnect(st, why);
          await this.connect(st, desired);
        });
      } else {
        this.settle(name);
      }
      return;
    }
    const wait = st.nextAttemptAt - Date.now();
    if (wait > 0 && !st.forceReconnect) {
      this.armRetryTimer(st, wait);
      return;
    }
    this.act(st, () => this.connect(st, desired));
  }

  /** Runs an action through the bounded queue; reconciles again if anything changed meanwhile. */
  private act(st: BackendState, action: () => Promise<void>): void {
    st.busy = true;
    st.dirty = false;
    void this.actions
      .add(action)
      .catch((err) => this.log.error({ backend: st.name, err }, 'reconcile action failed unexpectedly'))
      .finally(() => {
        st.busy = false;
        if (st.dirty) this.enqueue(st.name);
        else this.settle(st.name);
      });
  }

  private async connect(st: BackendState, spec: BackendSpec): Promise<void> {
    if (this.stopped) return;
    // A forced (manual) attempt starts backoff afresh, even if an attempt already running when it was asked for failed meanwhile.
    if (st.forceReconnect) st.attempts = 0;
    st.forceReconnect = false;
    st.state = 'connecting';
    st.error = null;
    setCondition(st.conditions, 'Ready', false, 'Connecting', 'connection in progress');
    this.setPhase(st, 'Initializing', 'connecting');
    this.events.emit({ stage: 'connecting', backend: st.name, message: `connecting to ${st.name} (attempt ${st.attempts + 1})` });
    const conn = this.pool.create(st.name, spec);
    const started = performance.now();
    st.connecting = conn;
    try {
      await conn.connect();
    } catch (err) {
      st.connecting = undefined;
      const reason = (err as Error).message;
      st.state = 'disconnected';
      st.error = reason;
      if (this.stopped) return;
      if (!this.isCurrent(st.name, spec)) {
        // The settings this attempt used are gone: not a failure of the new ones, try those straight away.
        st.dirty = true;
        return;
      }
      st.attempts += 1;
      this.setPhase(st, 'Failed', reason, 'error');
      this.events.emit({
        stage: 'error',
        backend: st.name,
        severity: 'error',
        message: `${st.name} failed to connect: ${reason}`,
        details: { attempt: st.attempts },
      });
      this.scheduleRetry(st, 'ConnectFailed', reason);
      return;
    }
    st.connecting = undefined;
    if (this.stopped || !this.isCurrent(st.name, spec)) {
      // Desired state moved on while connecting; drop this one and let the next reconcile decide.
      await conn.close();
      st.state = 'disconnected';
      st.dirty = true;
      return;
    }
    conn.on('closed', (reason) => this.connectionLost(st.name, conn, reason));
    st.conn = conn;
    st.connectedSpec = spec;
    st.connectedAt = Date.now();
    // `attempts` is kept until the connection proves stable (see connectionLost), so a flapping backend backs off.
    st.nextAttemptAt = 0;
    st.state = 'connected';
    st.error = null;
    const ms = Math.round(performance.now() - started);
    setCondition(st.conditions, 'Ready', true, 'Connected', `connected in ${ms} ms`);
    this.setPhase(st, 'Ready', 'connected');
    this.events.emit({
      stage: 'connected',
      backend: st.name,
      message: `${st.name} connected: ${conn.catalog.tools.length} tools, ${conn.catalog.resources.length} resources, ${conn.catalog.prompts.length} prompts`,
      details: { connect_ms: ms, pid: conn.pid ?? null },
    });
    this.pool.attach(conn);
    this.opts.onConnected?.(st);
  }

  /** Whether `spec` still describes the connection desired state asks for. */
  private isCurrent(name: string, spec: BackendSpec): boolean {
    const now = this.desired.get(name);
    return now !== undefined && now.enabled !== false && sameConnection(now, spec);
  }

  private async disconnect(st: BackendState, why: string, reason = 'Disconnected'): Promise<void> {
    const conn = st.conn;
    st.conn = undefined;
    st.connectedSpec = undefined;
    st.connectedAt = undefined;
    st.conflict = null;
    if (!conn) return;
    this.pool.detach(st.name);
    st.state = 'disconnecting';
    await conn.close();
    st.state = 'disconnected';
    st.error = null;
    st.health = { ...st.health, status: 'unknown', latency_ms: null };
    setCondition(st.conditions, 'Ready', false, reason, why);
    this.setPhase(st, 'Pending', why);
    this.events.emit({ stage: 'disconnected', backend: st.name, message: `${st.name} disconnected: ${why}` });
  }

  private async remove(st: BackendState): Promise<void> {
    clearTimeout(st.retryTimer);
    await this.disconnect(st, 'removed from config');
    if (this.desired.has(st.name)) return; // re-added meanwhile: keep the state
    this.states.delete(st.name);
    this.events.emit({ stage: 'removed', backend: st.name, message: `backend ${st.name} removed` });
  }

  /** A failed connect has counted its attempt already; a lost connection counts here. */
  private scheduleRetry(st: BackendState, cause: 'ConnectFailed' | 'ConnectionLost', reason: string): void {
    if (this.stopped) return;
    if (cause === 'ConnectionLost') st.attempts += 1;
    const delay = backoffDelay(st.attempts, this.opts.backoff, this.opts.random);
    st.nextAttemptAt = Date.now() + delay;
    const at = new Date(st.nextAttemptAt).toISOString();
    setCondition(st.conditions, 'Ready', false, cause, `${reason}; next attempt at ${at} (in ${delay} ms, attempt ${st.attempts + 1})`);
    this.events.emit({
      stage: 'retry_scheduled',
      backend: st.name,
      severity: 'warning',
      message: `${st.name}: retry in ${delay} ms`,
      details: { delay_ms: delay, next_attempt_at: at, attempt: st.attempts + 1 },
    });
    this.armRetryTimer(st, delay);
    // Inside an action, act() settles once the action is over (a dirty backend has more to do first).
    if (!st.busy) this.settle(st.name);
  }

  private armRetryTimer(st: BackendState, delay: number): void {
    clearTimeout(st.retryTimer);
    st.retryTimer = setTimeout(() => this.enqueue(st.name), delay);
    st.retryTimer.unref();
  }

  private waitSettled(name: string): Promise<void> {
    return new Promise((resolve) => {
      const list = this.settledWaiters.get(name) ?? [];
      list.push(resolve);
      this.settledWaiters.set(name, list);
    });
  }

  private settle(name: string): void {
    const waiters = this.settledWaiters.get(name);
    if (!waiters) return;
    this.settledWaiters.delete(name);
    for (const w of waiters) w();
  }
}
