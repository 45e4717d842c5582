/**
 * The controller: owns desired state (the loaded config) and observed state
 * (per-backend records), and keeps them converging through the reconcile
 * loop, the health monitor and, with hot reload on, the config file watcher.
 */
import type { Logger } from '../runtime/observability/logging/logger.js';
import type { GatewayConfig } from '../schemas/config.js';
import { GatewayError, ConfigError, BackendNotFoundError } from '../schemas/errors.js';
import type { BackendRecord } from '../schemas/records.js';
import type { ServingBackends } from '../runtime/backends/serving-backends.js';
import { loadConfigFile, type LoadedConfig, type SecretResolver } from './config-loader.js';
import { diffBackends } from './desired-state.js';
import { Reconciler, type ReconcilerOptions } from './reconciler.js';
import { HealthMonitor, type HealthPolicy, type HealthResult } from './health-monitor.js';
import { ConfigWatcher } from './config-watcher.js';
import type { BackendState } from './backend-state.js';
import { setCondition } from './conditions.js';
import type { EventBus } from './event-bus.js';
import type { ReloadResponse } from '../schemas/api.js';

export type ServiceState = 'starting' | 'running' | 'shutting_down' | 'stopped';

/** The answer of POST /reload, typed from its API schema. */
export type ReloadResult = ReloadResponse;

export interface AggregateHealth {
  status: 'healthy' | 'degraded' | 'unhealthy';
  total: number;
  /** Configured and not `enabled: false`. */
  enabled: number;
  connected: number;
  healthy: number;
}

export class GatewayController {
  readonly reconciler: Reconciler;
  readonly health: HealthMonitor;
  readonly startedAt = new Date();
  state: ServiceState = 'starting';
  private watcher?: ConfigWatcher;
  private reloading: Promise<unknown> | undefined;
  /** Told after every health result (whenSettled waits on first checks). */
  private readonly healthListeners = new Set<() => void>();

  constructor(
    public loaded: LoadedConfig,
    private readonly pool: ServingBackends,
    readonly events: EventBus,
    private readonly log: Logger,
    private readonly resolveSecrets?: SecretResolver,
  ) {
    this.reconciler = new Reconciler(pool, events, log, this.reconcilerOptions(loaded.config));
    this.health = new HealthMonitor(
      () => this.reconciler.states.values(),
      (st, r) => this.onHealth(st, r),
      healthPolicy(loaded.config),
    );
    pool.on('registry', (snapshot) => this.reconciler.syncConflicts(snapshot.rejected));
  }

  get config(): GatewayConfig {
    return this.loaded.config;
  }

  async start(): Promise<void> {
    this.apply(this.loaded.config);
    this.health.start();
    await this.syncWatcher();
    this.state = 'running';
  }

  /**
   * Resolves once every enabled backend has finished its first attempt
   * (Failed, or connected and through its first health check).
   */
  whenSettled(timeoutMs = 60_000): Promise<void> {
    const settled = () =>
      Object.entries(this.config.backends).every(([name, spec]) => {
        if (spec.enabled === false) return true;
        const st = this.reconciler.states.get(name);
        if (st === undefined || st.phase === 'Pending' || st.phase === 'Initializing') return false;
        return !st.conn || st.health.last_check !== null;
      });
    return new Promise((resolve) => {
      if (settled()) return resolve();
      const timer = setTimeout(finish, timeoutMs);
      const check = () => {
        if (settled()) queueMicrotask(finish);
      };
      const unsubscribe = this.events.subscribe(check);
      this.healthListeners.add(check);
      const healthListeners = this.healthListeners;
      function finish() {
        clearTimeout(timer);
        unsubscribe();
        healthListeners.delete(check);
        resolve();
      }
    });
  }

  /**
   * Re-reads the config file. An invalid file changes nothing: the running
   * config stays, and the problems are returned and published as an event.
   */
  reload(trigger: 'api' | 'watch' = 'api'): Promise<ReloadResult> {
    if (trigger === 'api' && !this.config.feature_flags.hot_reload) {
      return Promise.reject(
        new GatewayError('hot_reload_disabled', 'Reload needs feature_flags.hot_reload: true in the running config', { feature_flag: 'hot_reload' }),
      );
    }
    // Reloads are serialised: a second request waits for the first and then reads the file afresh.
    // A failed reload must neither reject the next one nor go unhandled here.
    const run = (this.reloading ?? Promise.resolve()).then(() => this.reloadNow(trigger));
    const settled = run
      .catch(() => undefined)
      .finally(() => {
        if (this.reloading === settled) this.reloading = undefined;
      });
    this.reloading = settled;
    return run;
  }

  private async reloadNow(trigger: string): Promise<ReloadResult> {
    let next: LoadedConfig;
    try {
      next = loadConfigFile(this.loaded.filePath, { resolveSecrets: this.resolveSecrets });
    } catch (err) {
      const problems = err instanceof ConfigError ? err.problems : [{ path: '', message: (err as Error).message }];
      this.events.emit({
        stage: 'reload_failed',
        severity: 'error',
        message: `config reload rejected (${problems.length} problem${problems.length === 1 ? '' : 's'}); the running config is kept`,
        details: { trigger, errors: problems },
      });
      return { reloaded: false, backends_added: [], backends_removed: [], backends_changed: [], errors: problems };
    }
    const diff = diffBackends(this.config.backends, next.config.backends);
    if (next.config.server.host !== this.config.server.host || next.config.server.port !== this.config.server.port) {
      this.log.warn('server.host and server.port changes take effect only after a restart');
    }
    this.loaded = next;
    this.apply(next.config);
    await this.syncWatcher();
    this.events.emit({
      stage: 'reload',
      message: `config reloaded: ${diff.added.length} added, ${diff.removed.length} removed, ${diff.changed.length} changed`,
      details: { trigger, added: diff.added, removed: diff.removed, changed: diff.changed },
    });
    return { reloaded: true, backends_added: diff.added, backends_removed: diff.removed, backends_changed: diff.changed, errors: [] };
  }

  /** Throws BackendNotFoundError (404) unless the running config has this backend. */
  requireBackend(name: string): void {
    // Own keys only: `constructor` or `toString` is an unknown backend, not a property of every object.
    if (!Object.hasOwn(this.config.backends, name)) throw new BackendNotFoundError(name);
  }

  async reconnect(name: string): Promise<{ name: string; reconnected: boolean; error: string | null }> {
    this.requireBackend(name);
    const result = await this.reconciler.reconnect(name);
    return { name, ...result };
  }

  backendRecords(): BackendRecord[] {
    // Config order, so listings are stable.
    return Object.keys(this.config.backends)
      .map((name) => this.reconciler.states.get(name))
      .filter((st): st is BackendState => st !== undefined)
      .map((st) => st.toRecord());
  }

  backendState(name: string): BackendState | undefined {
    return this.reconciler.states.get(name);
  }

  /**
   * Spec 3.2. `total` counts every configured backend; the status is judged on
   * the enabled ones (a backend switched off in config is not a fault):
   * healthy when all of them are Ready and passed their last health check,
   * unhealthy when none is connected (also when none is configured), degraded otherwise.
   */
  aggregateHealth(): AggregateHealth {
    const records = this.backendRecords();
    const total = Object.keys(this.config.backends).length;
    const enabled = Object.values(this.config.backends).filter((b) => b.enabled !== false).length;
    const connected = records.filter((r) => r.state === 'connected').length;
    // "Passing health checks": a backend never checked yet does not count.
    const healthy = records.filter((r) => r.phase === 'Ready' && r.health.status === 'healthy').length;
    const status = connected === 0 ? 'unhealthy' : healthy >= enabled ? 'healthy' : 'degraded';
    return { status, total, enabled, connected, healthy };
  }

  async shutdown(): Promise<void> {
    if (this.state === 'shutting_down' || this.state === 'stopped') return;
    this.state = 'shutting_down';
    this.events.emit({ stage: 'shutdown', message: 'gateway shutting down' });
    this.health.stop();
    await this.watcher?.stop();
    await this.reconciler.shutdown();
    this.state = 'stopped';
  }

  private apply(config: GatewayConfig): void {
    this.events.resize(config.events.buffer_size);
    this.health.setPolicy(healthPolicy(config));
    this.pool.configure(config.backends, config.conflict_resolution);
    this.reconciler.setDesired(config.backends, this.reconcilerOptions(config));
  }

  private async syncWatcher(): Promise<void> {
    const want = this.config.feature_flags.hot_reload;
    if (want && !this.watcher) {
      this.watcher = new ConfigWatcher(this.loaded.filePath, this.config.controller.reload_debounce_ms, () => {
        void this.reload('watch').catch((err) => this.log.error({ err }, 'config reload from file watch failed'));
      });
      await this.watcher.start();
    } else if (!want && this.watcher) {
      await this.watcher.stop();
      this.watcher = undefined;
    }
  }

  private reconcilerOptions(c: GatewayConfig): ReconcilerOptions {
    return {
      concurrency: c.controller.concurrency,
      ratePerSecond: c.controller.rate_limit_per_s,
      backoff: { initialMs: c.controller.backoff_initial_ms, maxMs: c.controller.backoff_max_ms, jitter: c.controller.backoff_jitter },
      // A fresh connection is checked at once, not one interval later, so its record shows real health from the start.
      onConnected: (st) => void this.health.check(st),
    };
  }

  /** Spec 3.1: healthy → Ready, degraded → Degraded, unhealthy → Failed; the record is synchronised. */
  private onHealth(st: BackendState, r: HealthResult): void {
    st.health = { status: r.status, last_check: r.checkedAt.toISOString(), latency_ms: r.latencyMs };
    queueMicrotask(() => this.healthListeners.forEach((listener) => listener()));
    if (st.conflict) return; // held back by a name conflict; health does not change that
    const threshold = this.config.health.degraded_latency_ms;
    if (r.status === 'healthy') {
      setCondition(st.conditions, 'HealthCheckFailed', false, 'HealthCheckPassed', `ping answered in ${r.latencyMs} ms`);
      setCondition(st.conditions, 'Ready', true, 'Connected', 'healthy');
      if (st.phase === 'Degraded')
        this.events.emit({ stage: 'health_recovered', backend: st.name, message: `${st.name} is healthy again (${r.latencyMs} ms)` });
      this.reconciler.setPhase(st, 'Ready', 'health check passed');
    } else if (r.status === 'degraded') {
      setCondition(st.conditions, 'HealthCheckFailed', true, 'SlowResponse', `ping took ${r.latencyMs} ms (degraded above ${threshold} ms)`);
      setCondition(st.conditions, 'Ready', true, 'Degraded', 'serving, but slow');
      if (st.phase !== 'Degraded') {
        this.events.emit({
          stage: 'health_degraded',
          backend: st.name,
          severity: 'warning',
          message: `${st.name} is slow: ping ${r.latencyMs} ms > ${threshold} ms`,
        });
      }
      this.reconciler.setPhase(st, 'Degraded', 'slow health check', 'warning');
    } else {
      setCondition(st.conditions, 'HealthCheckFailed', true, 'PingFailed', r.error ?? 'ping failed');
      this.events.emit({ stage: 'health_failed', backend: st.name, severity: 'error', message: `${st.name} failed its health check: ${r.error}` });
      if (st.conn) this.reconciler.connectionLost(st.name, st.conn, `health check failed: ${r.error}`);
    }
  }
}

function healthPolicy(c: GatewayConfig): HealthPolicy {
  return { intervalMs: c.health.interval_s * 1000, timeoutMs: c.health.timeout_s * 1000, degradedLatencyMs: c.health.degraded_latency_ms };
}
