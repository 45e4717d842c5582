/**
 * The controller: the reconcile loop (./loop/control-loop.ts) fed from the
 * config file. It loads and reloads desired state (with hot reload, on every
 * edit of the file), answers the management API's questions about observed
 * state (records, aggregate health), and takes everything down in order.
 */
import type { Logger } from '../runtime/observability/logging/logger.js';
import type { GatewayConfig } from '../schemas/config.js';
import { GatewayError, ConfigError, BackendNotFoundError } from '../schemas/errors.js';
import type { BackendRecord, CircuitState, LostConflict } from '../schemas/records.js';
import type { ReloadResponse } from '../schemas/api.js';
import type { RoutesChange, ServingBackends } from '../runtime/backends/serving-backends.js';
import type { RouteTable } from '../runtime/routing/route-table.js';
import type { BackendConnection } from '../runtime/backends/backend-connection.js';
import type { DesiredState } from './config/desired-state.js';
import { dirname } from 'node:path';
import { loadConfigFile, parseConfigText, type LoadedConfig, type SecretResolver } from './config/config-loader.js';
import { previewConfig, type ReloadPreview } from './config/reload-preview.js';
import { ConfigWatcher } from './config/config-watcher.js';
import type { StatusView, StatusWriter } from './status/status-store.js';
import { toBackendRecord } from './status/backend-record.js';
import { HiddenCapabilityReporter } from './status/hidden-capabilities.js';
import type { HealthProber } from './health/health-prober.js';
import { ControlLoop, type LoopPolicy, type ReconnectResult } from './loop/control-loop.js';
import type { ContainerManagerPort } from './loop/container-step.js';
import type { EventBus } from './event-bus.js';
import { FirstConnectTracker } from './status/first-connect-tracker.js';

export type ServiceState = 'starting' | 'running' | 'shutting_down' | 'stopped';

export interface AggregateHealth {
  status: 'healthy' | 'degraded' | 'unhealthy';
  total: number;
  /** Configured and not `enabled: false`. */
  enabled: number;
  connected: number;
  healthy: number;
}

export interface GatewayControllerDeps {
  loaded: LoadedConfig;
  /** Desired state, made from `loaded` by the composition root and shared with the serving set. */
  desired: DesiredState;
  status: { view: StatusView; writer: StatusWriter };
  serving: ServingBackends;
  events: EventBus;
  log: Logger;
  resolveSecrets?: SecretResolver;
  containers?: ContainerManagerPort;
  /** A backend's circuit under the circuit_breaker plugin (runtime/plugins), null without one. */
  circuitOf?: (backend: string) => CircuitState | null;
}

export class GatewayController {
  readonly startedAt = new Date();
  state: ServiceState = 'starting';
  loaded: LoadedConfig;
  readonly events: EventBus;
  private readonly loop: ControlLoop<BackendConnection>;
  private readonly log: Logger;
  private readonly resolveSecrets?: SecretResolver;
  private readonly circuitOf: (backend: string) => CircuitState | null;
  private watcher?: ConfigWatcher;
  private reloading: Promise<unknown> | undefined;
  private readonly configListeners = new Set<(config: GatewayConfig) => void | Promise<void>>();
  private readonly serving: ServingBackends;
  private readonly hidden: HiddenCapabilityReporter;
  /** The start-up config's backends still in their first connect attempt (the router waits for them; not ready until none is). */
  readonly firstConnects: FirstConnectTracker;

  constructor(d: GatewayControllerDeps) {
    this.loaded = d.loaded;
    this.events = d.events;
    this.log = d.log;
    this.resolveSecrets = d.resolveSecrets;
    this.serving = d.serving;
    this.circuitOf = d.circuitOf ?? (() => null);
    this.firstConnects = new FirstConnectTracker(d.status.view, d.desired, () => this.config.controller.first_connect_wait_s * 1000);
    this.loop = new ControlLoop({
      desired: d.desired,
      status: d.status,
      serving: d.serving,
      events: d.events,
      log: d.log,
      containers: d.containers,
      policy: loopPolicy(d.loaded.config),
    });
    this.hidden = new HiddenCapabilityReporter(
      d.events,
      (name) => Object.hasOwn(this.config.backends, name),
      () => this.config.conflict_resolution.strategy,
    );
  }

  /** The watch on the route table (delivered by app/route-listeners.ts): conflict verdicts looked at again, hidden capabilities reported. */
  routesChanged(table: RouteTable, change: RoutesChange): void {
    this.loop.routesChanged(change);
    this.hidden.observe(table);
  }

  get config(): GatewayConfig {
    return this.loaded.config;
  }

  /** Observed state, read-only. */
  get status(): StatusView {
    return this.loop.status;
  }

  /** The health prober (its policy follows the config; tests tighten it). */
  get health(): HealthProber {
    return this.loop.health;
  }

  async start(): Promise<void> {
    this.loop.start();
    await this.syncWatcher();
    this.state = 'running';
  }

  /**
   * Told after every applied reload: what depends on the config follows
   * (session limits, redaction, the plugin chain). A reload answers once
   * the promises listeners return have settled.
   */
  onConfigApplied(listener: (config: GatewayConfig) => void | Promise<void>): () => void {
    this.configListeners.add(listener);
    return () => this.configListeners.delete(listener);
  }

  /** Resolves once every enabled backend has finished its first attempt, or at the timeout. */
  whenSettled(timeoutMs = 60_000): Promise<void> {
    return this.loop.whenSettled(timeoutMs);
  }

  /**
   * Re-reads the config file. An invalid file changes nothing: the running
   * config stays, and the problems are returned and published as an event.
   */
  reload(trigger: 'api' | 'watch' = 'api'): Promise<ReloadResponse> {
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

  /**
   * What a reload would change, changing nothing: the config file as it is
   * now (or `text` in its place) against the running config.
   */
  previewReload(text?: string): ReloadPreview {
    const opts = { resolveSecrets: this.resolveSecrets };
    return previewConfig(this.config, () =>
      text === undefined ? loadConfigFile(this.loaded.filePath, opts).config : parseConfigText(text, { ...opts, configDir: dirname(this.loaded.filePath) }),
    );
  }

  /** Throws BackendNotFoundError (404) unless the running config has this backend. */
  requireBackend(name: string): void {
    // Own keys only: `constructor` or `toString` is an unknown backend, not a property of every object.
    if (!Object.hasOwn(this.config.backends, name)) throw new BackendNotFoundError(name);
  }

  /** POST /reconnect/{name}: concurrent requests share one fresh connection. */
  async reconnect(name: string): Promise<ReconnectResult> {
    this.requireBackend(name);
    return this.loop.reconnect(name);
  }

  /** Records in config order, so listings are stable. */
  backendRecords(): BackendRecord[] {
    return this.loop.desired
      .names()
      .map((name) => this.backendRecord(name))
      .filter((r): r is BackendRecord => r !== undefined);
  }

  backendRecord(name: string): BackendRecord | undefined {
    const st = this.loop.status.get(name);
    return (
      st &&
      toBackendRecord(st, this.loop.serving(name), {
        quarantinedTools: this.quarantinedTools(name),
        circuit: this.circuitOf(name),
        conflicts: this.lostConflicts(name),
      })
    );
  }

  /** The names another backend keeps, with the winner of each (the route table decides them). */
  private lostConflicts(name: string): LostConflict[] {
    return this.serving.routes.conflicts.filter((c) => c.loser === name).map(({ kind, name: exposed, winner }) => ({ kind, name: exposed, winner }));
  }

  /** How many of a backend's tools are held back until an operator approves them. */
  private quarantinedTools(name: string): number {
    let count = 0;
    for (const route of this.serving.routes.quarantined.tools.values()) if (route.backend === name) count++;
    return count;
  }

  /** The backend's live connection, or the attempt in progress (its process id, for tests and diagnostics). */
  connection(name: string): BackendConnection | undefined {
    return this.loop.connection(name);
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
    await this.watcher?.stop();
    await this.loop.shutdown();
    this.state = 'stopped';
  }

  private async reloadNow(trigger: string): Promise<ReloadResponse> {
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
    const listeners = ({ server }: GatewayConfig) => [server.host, server.port, server.management.host, server.management.port].join(' ');
    if (listeners(next.config) !== listeners(this.config)) {
      this.log.warn('server.host, server.port and server.management.host/port changes take effect only after a restart');
    }
    if (JSON.stringify(next.config.sessions) !== JSON.stringify(this.config.sessions)) {
      this.log.warn('sessions.* changes take effect only after a restart');
    }
    this.loaded = next;
    this.events.resize(next.config.events.buffer_size);
    // One diff: the answer, and the names the loop is asked to look at.
    const diff = this.loop.apply(next.config.backends, next.config.conflict_resolution, loopPolicy(next.config));
    await this.syncWatcher();
    const followed = await Promise.allSettled([...this.configListeners].map(async (listener) => listener(next.config)));
    for (const f of followed)
      if (f.status === 'rejected') this.log.error({ err: f.reason as unknown }, 'a part of the gateway did not follow the reloaded config');
    this.events.emit({
      stage: 'reload',
      message: `config reloaded: ${diff.added.length} added, ${diff.removed.length} removed, ${diff.changed.length} changed`,
      details: { trigger, added: diff.added, removed: diff.removed, changed: diff.changed },
    });
    return { reloaded: true, backends_added: diff.added, backends_removed: diff.removed, backends_changed: diff.changed, errors: [] };
  }

  private async syncWatcher(): Promise<void> {
    const want = this.config.feature_flags.hot_reload;
    if (want && !this.watcher) {
      this.watcher = new ConfigWatcher(this.loaded.filePath, this.config.controller.reload_debounce_ms, this.log, () => {
        void this.reload('watch').catch((err: unknown) => this.log.error({ err }, 'config reload from file watch failed'));
      });
      await this.watcher.start();
    } else if (!want && this.watcher) {
      await this.watcher.stop();
      this.watcher = undefined;
    }
  }
}

function loopPolicy(c: GatewayConfig): LoopPolicy {
  return {
    queue: { concurrency: c.controller.concurrency, ratePerSecond: c.controller.rate_limit_per_s },
    backoff: { initialMs: c.controller.backoff_initial_ms, maxMs: c.controller.backoff_max_ms, jitter: c.controller.backoff_jitter },
    health: { intervalMs: c.health.interval_s * 1000, timeoutMs: c.health.timeout_s * 1000, degradedLatencyMs: c.health.degraded_latency_ms },
    resyncMs: c.controller.resync_s * 1000,
  };
}
