/**
 * The reconciler: `reconcile(name)` reads desired state (the config, reconnect
 * requests) and what it can observe of the backend (its connection, the
 * latest probe, the route table's conflict verdict, its catalog's counts),
 * takes at most one step
 * toward desired (connect, disconnect, remove), records what it saw in the
 * status (it is the only status writer), and says when to look again.
 *
 * Level-triggered and idempotent: called twice with nothing changed, the
 * second call does nothing. Failures it can name (a connect that failed, a
 * connection lost) are recorded in the status and retried after the
 * per-name backoff; anything it throws is retried by the work queue.
 *
 * It keeps only the decisions: what each observation means for the record
 * (patch and events) is a transition (../status/transitions.ts), applied by
 * the one status writer.
 */
import type { Logger } from '../../runtime/observability/logging/logger.js';
import type { BackendSpec } from '../../schemas/config.js';
import { sameConnection, type DesiredState } from '../config/desired-state.js';
import type { StatusView, StatusWriter } from '../status/status-store.js';
import type { HealthProber, Pingable, ProbeResult } from '../health/health-prober.js';
import type { BackoffLimiter } from './backoff.js';
import type { Placement } from '../../runtime/transports/create-backend-transport.js';
import type { ContainerRef } from '../../schemas/records.js';
import * as T from '../status/transitions.js';
import { containerStep, forgetImage, type ContainerManagerPort, type ContainerMemory } from './container-step.js';
import { findAuthorizationRequired } from '../../runtime/auth/errors.js';
import type { ReadyReason } from '../../schemas/conditions.js';
import { CATALOG_SETTLE_MS, CatalogSettle, countsOf } from './catalog-settle.js';

/** What the reconciler needs of a backend connection (runtime/backends/backend-connection.ts). */
export interface BackendHandle extends Pingable {
  readonly name: string;
  readonly pid: number | undefined;
  /** The MCP revision it speaks, once connected. */
  readonly protocolVersion?: string;
  readonly catalog: { tools: unknown[]; resources: unknown[]; prompts: unknown[] };
  /** Why it ended by itself (process exit, transport loss); undefined while up. */
  readonly endedReason?: string;
  /** Set when it ended because the user must authorize the gateway again (OAuth): no retry helps. */
  readonly authorizationRequired?: string;
  /** Set when a call needed a scope the token lacks (OAuth step-up); the connection serves on. */
  readonly stepUpRequired?: { scope: string; message: string };
  /** The container it runs in, once started. */
  readonly container?: ContainerRef;
  connect(): Promise<void>;
  close(): Promise<void>;
  once(event: 'closed', listener: (reason: string) => void): unknown;
  /** After the catalog changed (a list_changed from the backend), or a call needed more scope. */
  on(event: 'catalog' | 'stepUp', listener: () => void): unknown;
}

/** The connections in service and the route table built from them (runtime/backends/serving-backends.ts). */
export interface ServingSet<C extends BackendHandle> {
  /** A new connection, placed where the container steps decided (absent: as the spec says). */
  create(name: string, spec: BackendSpec, placement?: Placement): C;
  attach(conn: C): void;
  /** Out of service; `remember` keeps its names so calls can say the backend is down rather than unknown. */
  detach(name: string, opts: { remember: boolean }): void;
  /** Why the route table leaves this backend out (a name conflict under strategy `error`), or null. */
  rejection(name: string): string | null;
}

export interface ReconcileResult {
  /** Look again after this long (0: at once). Absent: done until an event says otherwise. */
  requeueAfterMs?: number;
}

/** A backend's live objects: not status (no one else reads them), but what the reconciler observes. */
interface Live<C> {
  conn?: C;
  /** An attempt in progress (closed on shutdown so a hanging connect cannot hold it up). */
  connecting?: C;
  connectedSpec?: BackendSpec;
  connectedAt?: number;
  /** The spec of the last attempt: a new one is tried at once, not after the old backoff. */
  attemptSpec?: BackendSpec;
  /** No attempt before this (ms epoch), unless the settings change or a reconnect is asked for. */
  retryAt: number;
  /** The probe result already recorded, so a result is applied once. */
  appliedProbe?: object;
  conflict: string | null;
  /** What the container steps remember (the ensured image). */
  container: ContainerMemory;
  /** The spec that needs the user's authorization: parked (no retries) until a reauth, a reconnect or new settings. */
  awaitingAuthorization?: BackendSpec;
  /** The step-up need already recorded for the current connection. */
  recordedStepUp?: object;
  /** The current connection's catalog counts: when they last changed, which were announced. */
  catalog?: CatalogSettle;
}

export interface ReconcilerDeps<C extends BackendHandle> {
  desired: DesiredState;
  serving: ServingSet<C>;
  status: StatusWriter;
  view: StatusView;
  backoff: BackoffLimiter;
  prober: HealthProber;
  /** Where an event about a backend goes: back into the work queue. */
  enqueue(name: string): void;
  /** The container runtime, for stdio backends; absent: they run as bare processes. */
  containers?: ContainerManagerPort;
  log: Logger;
  now?: () => number;
}

export class Reconciler<C extends BackendHandle> {
  private readonly live = new Map<string, Live<C>>();
  private stopping = false;
  private readonly now: () => number;

  constructor(private readonly d: ReconcilerDeps<C>) {
    this.now = d.now ?? Date.now;
  }

  async reconcile(name: string): Promise<ReconcileResult> {
    if (this.stopping) return {};
    const desired = this.d.desired.get(name);
    let live = this.live.get(name);
    if (!desired) {
      if (live || this.d.view.get(name)) await this.remove(name);
      return {};
    }
    if (!live) live = this.register(name, desired);
    if (this.d.view.get(name)!.spec !== desired) this.record(name, T.specChanged(desired));

    if (desired.enabled === false) {
      if (live.conn) {
        await this.disconnect(name, live, 'disabled in config', 'Disabled');
        return {};
      }
      this.record(name, T.disabled());
      this.d.backoff.forget(name);
      return {};
    }

    if (live.conn) return this.reconcileConnected(name, live, desired);
    return this.reconcileDisconnected(name, live, desired);
  }

  /** The live connections in service, for the health prober. */
  *connections(): Iterable<readonly [string, C]> {
    for (const [name, live] of this.live) if (live.conn && !live.conn.endedReason) yield [name, live.conn];
  }

  connection(name: string): C | undefined {
    return this.live.get(name)?.conn;
  }

  /** A connect attempt in progress. */
  attempt(name: string): C | undefined {
    return this.live.get(name)?.connecting;
  }

  /** Stops acting; closes attempts in progress so reconciles blocked on them finish. */
  stop(): void {
    this.stopping = true;
    for (const live of this.live.values()) void live.connecting?.close();
  }

  /** After stop() and the queue drained: every backend ShuttingDown, every connection closed. */
  async closeAll(): Promise<void> {
    await Promise.all(
      [...this.live.entries()].map(async ([name, live]) => {
        this.record(name, T.shuttingDown(live.conn !== undefined));
        const conn = this.dropConnection(live);
        if (conn) {
          this.d.serving.detach(name, { remember: false });
          await conn.close();
        }
        this.record(name, T.closed());
      }),
    );
  }

  // --- connected ---

  private async reconcileConnected(name: string, live: Live<C>, desired: BackendSpec): Promise<ReconcileResult> {
    const conn = live.conn!;
    if (conn.endedReason !== undefined) return this.connectionLost(name, live, conn.endedReason);

    const probe = this.d.prober.latest(name);
    if (probe && probe.target === conn && probe !== live.appliedProbe) {
      live.appliedProbe = probe;
      if (probe.status === 'unhealthy') {
        this.record(name, T.healthFailed(name, probe));
        return this.connectionLost(name, live, `health check failed: ${probe.error}`);
      }
      this.recordHealth(name, live, probe);
    }

    const reconnect = this.d.desired.reconnectRequested(name) > this.d.view.get(name)!.reconnectsAnswered;
    if (reconnect || !sameConnection(live.connectedSpec!, desired)) {
      if (!reconnect) this.record(name, T.reconnectForNewSettings(name));
      this.d.backoff.forget(name);
      live.retryAt = 0;
      await this.disconnect(name, live, reconnect ? 'manual reconnect' : 'configuration changed');
      return { requeueAfterMs: 0 };
    }

    this.recordConflict(name, live);
    const stepUp = conn.stepUpRequired;
    if (stepUp && stepUp !== live.recordedStepUp) {
      live.recordedStepUp = stepUp;
      this.record(name, T.insufficientScope(name, stepUp.scope, stepUp.message));
    }
    const catalogWait = this.announceCatalog(name, live, conn);
    // A young connection is looked at again once it has proven stable: only then is its backoff forgotten.
    const stableWait = live.connectedAt! + this.d.backoff.stableAfterMs - this.now();
    if (stableWait <= 0) this.d.backoff.forget(name);
    const waits = [catalogWait, stableWait].filter((ms) => ms > 0);
    return waits.length > 0 ? { requeueAfterMs: Math.min(...waits) } : {};
  }

  /**
   * Announces what the backend offers once its catalog counts have settled
   * (./catalog-settle.ts); returns how long until they may have (0: nothing
   * to wait for). A catalog change only enqueues the backend, so this is
   * where it is recorded.
   */
  private announceCatalog(name: string, live: Live<C>, conn: C): number {
    const verdict = live.catalog!.observe(countsOf(conn.catalog), this.now());
    if ('announce' in verdict) this.record(name, T.catalogSettled(name, verdict.announce));
    return 'waitMs' in verdict ? verdict.waitMs : 0;
  }

  private recordHealth(name: string, live: Live<C>, probe: ProbeResult): void {
    // Held back by a name conflict: health does not change that.
    if (live.conflict) return this.record(name, T.healthNoted(probe));
    const wasDegraded = this.d.view.get(name)!.phase === 'Degraded';
    this.record(name, probe.status === 'healthy' ? T.healthPassed(name, probe, wasDegraded) : T.healthSlow(name, probe, wasDegraded));
  }

  /** The route table's verdict under conflict strategy `error`. */
  private recordConflict(name: string, live: Live<C>): void {
    const verdict = this.d.serving.rejection(name);
    if (verdict === live.conflict) return;
    live.conflict = verdict;
    this.record(name, verdict ? T.nameConflict(name, verdict) : T.conflictResolved());
  }

  private async connectionLost(name: string, live: Live<C>, reason: string): Promise<ReconcileResult> {
    const inContainer = this.d.view.get(name)!.container !== null;
    const failedCheck = this.d.view.get(name)!.health.status === 'unhealthy';
    const conn = this.dropConnection(live)!;
    this.d.serving.detach(name, { remember: true });
    void conn.close();
    if (conn.authorizationRequired) {
      const answered = this.d.view.get(name)!.reconnectsAnswered;
      return this.awaitAuthorization(name, live, this.d.desired.get(name)!, conn.authorizationRequired, answered, reason);
    }
    this.record(name, T.connectionLost(name, reason, this.scheduleRetry(name, live), { inContainer, failedCheck }));
    return { requeueAfterMs: live.retryAt - this.now() };
  }

  // --- disconnected ---

  private async reconcileDisconnected(name: string, live: Live<C>, desired: BackendSpec): Promise<ReconcileResult> {
    const reconnect = this.d.desired.reconnectRequested(name) > this.d.view.get(name)!.reconnectsAnswered;
    const newSettings = live.attemptSpec !== undefined && !sameConnection(live.attemptSpec, desired);
    if (reconnect || newSettings) {
      // A manual reconnect or new connection settings deserve a fresh attempt now, not at the end of the old backoff.
      this.d.backoff.forget(name);
      live.retryAt = 0;
    }
    if (live.awaitingAuthorization && !reconnect && !newSettings) return {}; // only the user can unblock it (POST /reauth)
    live.awaitingAuthorization = undefined;
    const wait = live.retryAt - this.now();
    if (wait > 0) return { requeueAfterMs: wait };
    if (desired.type !== 'stdio' || !this.d.containers) return this.connect(name, live, desired);
    const step = await containerStep({ containers: this.d.containers, view: this.d.view, record: (t) => this.record(name, t) }, name, desired, live.container);
    if (step.next === 'requeue') return { requeueAfterMs: 0 };
    if (step.next === 'fail') return this.failAttempt(name, live, step.message, step.reason, this.d.desired.reconnectRequested(name));
    return this.connect(name, live, desired, step.placement);
  }

  private async connect(name: string, live: Live<C>, spec: BackendSpec, placement?: Placement): Promise<ReconcileResult> {
    const answering = this.d.desired.reconnectRequested(name);
    live.attemptSpec = spec;
    this.record(name, T.connecting(name, this.d.backoff.failures(name) + 1));
    const conn = this.d.serving.create(name, spec, placement);
    live.connecting = conn;
    const started = performance.now();
    try {
      await conn.connect();
    } catch (err) {
      live.connecting = undefined;
      const reason = (err as Error).message;
      if (this.stopping) return {};
      if (!this.isCurrent(name, spec)) {
        // The settings this attempt used are gone: not a failure of the new ones; try those at once.
        this.record(name, T.attemptSuperseded(reason));
        return { requeueAfterMs: 0 };
      }
      const auth = findAuthorizationRequired(err);
      if (auth) return this.awaitAuthorization(name, live, spec, auth.message, answering);
      // The image may be gone (a `gateway clean --all`): it is checked again before the next attempt.
      if (placement?.mode === 'container') forgetImage(live.container);
      return this.failAttempt(name, live, reason, 'ConnectFailed', answering);
    }
    live.connecting = undefined;
    if (this.stopping || !this.isCurrent(name, spec)) {
      // Desired state moved on while connecting; drop this one and look again.
      await conn.close();
      this.record(name, T.attemptSuperseded());
      return { requeueAfterMs: 0 };
    }
    // The events only ask for a look; the next reconcile records what happened.
    conn.once('closed', () => this.d.enqueue(name));
    conn.on('stepUp', () => this.d.enqueue(name));
    conn.on('catalog', () => this.d.enqueue(name));
    live.conn = conn;
    live.connectedSpec = spec;
    live.connectedAt = this.now();
    live.retryAt = 0;
    live.conflict = null;
    live.catalog = new CatalogSettle(countsOf(conn.catalog), this.now());
    const connectMs = Math.round(performance.now() - started);
    const oauth = spec.type !== 'stdio' && spec.auth?.type === 'oauth';
    this.record(name, T.connected(name, { connectMs, pid: conn.pid, container: conn.container, oauth, answering }));
    this.d.serving.attach(conn);
    this.recordConflict(name, live);
    // A fresh connection is checked at once, not one interval later: its record shows real health from the start.
    void this.d.prober.probe(name, conn);
    // Looked at again when its catalog may have settled (its counts announced), and when it has proven stable.
    return { requeueAfterMs: Math.min(CATALOG_SETTLE_MS, this.d.backoff.stableAfterMs) };
  }

  /**
   * The backend needs the user to authorize the gateway (OAuth): Failed with
   * Authenticated=false / AuthorizationRequired, and parked: no retry loop,
   * since only `gateway-client reauth <name>` (POST /reauth) can help.
   */
  private awaitAuthorization(name: string, live: Live<C>, spec: BackendSpec, message: string, answering: number, lost?: string): ReconcileResult {
    live.awaitingAuthorization = spec;
    live.retryAt = 0;
    this.d.backoff.forget(name);
    this.record(name, T.authorizationRequired(name, message, answering, lost));
    return {};
  }

  /** Records a failed attempt (connect, image, runtime) and schedules the next one after the backoff. */
  private failAttempt(name: string, live: Live<C>, error: string, reason: ReadyReason, answering: number): ReconcileResult {
    // A reconnect asked for while this attempt ran is a fresh start: its failure counts from zero.
    if (this.d.desired.reconnectRequested(name) > answering) this.d.backoff.forget(name);
    this.record(name, T.attemptFailed(name, error, reason, answering, this.scheduleRetry(name, live)));
    return { requeueAfterMs: live.retryAt - this.now() };
  }

  /** Whether `spec` still describes the connection desired state asks for. */
  private isCurrent(name: string, spec: BackendSpec): boolean {
    const now = this.d.desired.get(name);
    return now !== undefined && now.enabled !== false && sameConnection(now, spec);
  }

  private async disconnect(name: string, live: Live<C>, why: string, reason: 'Disconnected' | 'Disabled' = 'Disconnected'): Promise<void> {
    const conn = this.dropConnection(live);
    if (!conn) return;
    const inContainer = this.d.view.get(name)!.container !== null;
    this.d.serving.detach(name, { remember: reason !== 'Disabled' });
    this.record(name, T.disconnecting());
    await conn.close();
    this.record(name, T.disconnected(name, why, reason, { inContainer }));
  }

  /** Forgets the live connection (and what was known of it); returns it for closing. */
  private dropConnection(live: Live<C>): C | undefined {
    const conn = live.conn;
    live.conn = undefined;
    live.connectedSpec = undefined;
    live.connectedAt = undefined;
    live.conflict = null;
    live.catalog = undefined;
    return conn;
  }

  /** The next attempt after the per-name backoff. */
  private scheduleRetry(name: string, live: Live<C>): T.Retry {
    const delayMs = this.d.backoff.when(name);
    live.retryAt = this.now() + delayMs;
    return { delayMs, at: live.retryAt, attempt: this.d.backoff.failures(name) + 1 };
  }

  private register(name: string, spec: BackendSpec): Live<C> {
    const live: Live<C> = { retryAt: 0, conflict: null, container: {} };
    this.live.set(name, live);
    this.d.status.create(name, spec);
    this.record(name, T.registered(name, spec));
    return live;
  }

  private async remove(name: string): Promise<void> {
    const live = this.live.get(name);
    if (live?.conn) await this.disconnect(name, live, 'removed from config');
    this.d.serving.detach(name, { remember: false });
    this.live.delete(name);
    this.d.backoff.forget(name);
    this.d.prober.forget(name);
    this.d.status.remove(name, T.removed(name));
  }

  private record(name: string, transition: T.Transition): void {
    this.d.status.apply(name, transition);
  }
}
