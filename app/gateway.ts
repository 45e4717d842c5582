/**
 * The composition root. `Gateway.start` reads top to bottom as the start-up
 * order: load the config, build logging and telemetry, build the runtime and
 * the controller, listen, start the controller. `stop` is the same list
 * backwards. Each step is a file of its own in app/; the listener is bound
 * before any backend starts, so a port in use fails fast and starts nothing.
 */
import type { FastifyInstance } from 'fastify';
import { DEFAULT_TIMEOUTS, type GatewayConfig } from '../schemas/config.js';
import type { GatewayController } from '../controller/gateway-controller.js';
import type { EventBus } from '../controller/event-bus.js';
import { Redactor } from '../runtime/observability/logging/redactor.js';
import type { Logger } from '../runtime/observability/logging/logger.js';
import type { AuditLog } from '../runtime/observability/audit/audit-log.js';
import type { Telemetry } from '../runtime/observability/telemetry/index.js';
import type { Router } from '../runtime/routing/router.js';
import type { ServingBackends } from '../runtime/backends/serving-backends.js';
import type { SkillManager } from '../runtime/skills/skill-manager.js';
import type { DefinitionPins } from '../runtime/pinning/definition-pins.js';
import type { RegistryClient } from '../runtime/registry/registry-client.js';
import type { SessionTable } from '../api/mcp/session-table.js';
import { loadConfig } from './load-config.js';
import { buildObservability, type Observability, type ObservabilityOptions } from './observability.js';
import { buildRuntime, type Runtime } from './runtime.js';
import { followReloads } from './follow-reloads.js';
import { buildMcpFrontDoor, type McpFrontDoor } from './mcp-front-door.js';
import { listen, type Bound, type Listening, type ListenOptions } from './listen.js';

/** What a draining replica tells clients: reconnect (elsewhere) after this long. */
const DRAIN_RETRY_MS = 1000;

export interface GatewayOptions extends ObservabilityOptions, ListenOptions {
  configPath?: string;
  /**
   * This gateway's redactor (default: a new one). Pass one to redact what
   * happens around the gateway (start-up errors, a logger made elsewhere)
   * with the secrets it learns.
   */
  redactor?: Redactor;
  /** Wait for every backend's first connect attempt before start() resolves (default true). */
  waitForBackends?: boolean;
  /** Where definition pins are kept (default `<state>/pins.json`); tests give each gateway its own. */
  pinsFile?: string;
  /** Where the sealed per-user tokens (and their key) are kept without Redis; default `<state>/user-tokens`. */
  userTokensDir?: string;
}

export class Gateway {
  private listening?: Listening;
  /** What the MCP endpoints serve with (both revisions), once listening. */
  private front?: McpFrontDoor;
  private stopping?: Promise<void>;
  private readonly stoppedListeners: Array<() => void> = [];

  private constructor(
    private readonly runtime: Runtime,
    private readonly observability: Observability,
    readonly redactor: Redactor,
  ) {}

  static async start(opts: GatewayOptions = {}): Promise<Gateway> {
    const redactor = opts.redactor ?? new Redactor();
    const { loaded, resolveSecrets } = loadConfig(opts.configPath, redactor);
    const observability = await buildObservability(loaded.config, opts, redactor);
    const runtime = await buildRuntime(loaded, resolveSecrets, observability, redactor, { pinsFile: opts.pinsFile, userTokensDir: opts.userTokensDir });
    followReloads(runtime, observability.logger, redactor);
    const gateway = new Gateway(runtime, observability, redactor);
    await gateway.open(opts);
    return gateway;
  }

  get app(): FastifyInstance {
    return this.requireListening().app;
  }

  /** `http://host:port` the gateway listens on (its MCP endpoints). */
  get url(): string {
    return this.requireListening().url;
  }

  /** `http://host:port` of the management API: its own listener with `server.management.port`, else `url`. */
  get managementUrl(): string {
    const listening = this.requireListening();
    return listening.management?.url ?? listening.url;
  }

  get controller(): GatewayController {
    return this.runtime.controller;
  }

  get router(): Router {
    return this.runtime.router;
  }

  get sessions(): SessionTable {
    return this.runtime.sessions;
  }

  get serving(): ServingBackends {
    return this.runtime.serving;
  }

  get pins(): DefinitionPins {
    return this.runtime.pins;
  }

  get skills(): SkillManager {
    return this.runtime.skills;
  }

  get registry(): RegistryClient {
    return this.runtime.registry;
  }

  get events(): EventBus {
    return this.observability.events;
  }

  get audit(): AuditLog {
    return this.observability.audit;
  }

  get telemetry(): Telemetry {
    return this.observability.telemetry;
  }

  get logger(): Logger {
    return this.observability.logger;
  }

  /**
   * Graceful stop: refuse new connections, let in-flight requests finish
   * (up to the timeout), close client sessions, disconnect every backend,
   * flush the audit trail and telemetry.
   */
  shutdown(timeoutSeconds?: number): Promise<void> {
    this.stopping ??= this.stop(timeoutSeconds ?? this.controller.config.server.shutdown_timeout_s);
    return this.stopping;
  }

  /** Called once the gateway has stopped (signal, POST /shutdown or a direct call). */
  onStopped(listener: () => void): void {
    this.stoppedListeners.push(listener);
  }

  /** Scans the skills, listens, then starts the controller (backends connect only once the port is ours). */
  private async open(opts: GatewayOptions): Promise<void> {
    const { logger } = this.observability;
    const { controller, skills, sessions, pins } = this.runtime;
    // Skills are scanned before the listener opens: GET /skills answers from the first request.
    await skills.start().catch((err: unknown) => logger.error({ err }, 'the skill manager failed to start'));
    // Shared sessions: Redis is connected (or said to be unreachable) before the first request.
    await this.runtime.shared?.start();
    try {
      this.front = await buildMcpFrontDoor(this.runtime, controller, logger);
      const requestShutdown = (timeoutS?: number) => void this.shutdown(timeoutS);
      this.listening = await listen(controller.config, opts, this.runtime, this.observability, this.redactor, requestShutdown, this.front);
    } catch (err) {
      // Nothing may keep the process alive after a failed start (the skills watcher, a token flow, the audit writer).
      await this.release();
      throw err;
    }
    sessions.startReaper();
    if (!pins.isRead) {
      // Redis out of reach at start: listening and not ready; backends connect once the cluster's pins are read,
      // so none is reviewed against pins this replica has not seen (docs/scale-out.md).
      logger.warn({ pins: pins.location }, 'the definition pins cannot be read yet: backends connect once the session store (Redis) is reached');
      void pins.whenRead().then(() => this.startController());
      return;
    }
    await this.startController();
    if (opts.waitForBackends !== false) await controller.whenSettled(longestConnectMs(controller.config) + 5000);
  }

  private async startController(): Promise<void> {
    if (this.stopping) return;
    await this.controller.start();
  }

  private async stop(timeoutSeconds: number): Promise<void> {
    const { logger } = this.observability;
    const { router, requests, sessions, drain } = this.runtime;
    const { shutdown_drain_s: drainS } = this.controller.config.server;
    logger.info({ timeout_s: timeoutSeconds }, 'shutting down');
    // 1. With shared sessions, drain first: GET /ready answers 503 at once while the replica keeps listening and serving
    //    everything for shutdown_drain_s (a balancer's health checks take it out meanwhile; another replica takes up
    //    its sessions). Then no new session or stream is taken and GET streams end with `retry:` (their clients
    //    reconnect elsewhere). Without shared sessions, stop accepting: the listener closes, idle sockets go, new
    //    requests on open ones get 503.
    const draining = this.runtime.shared !== undefined;
    if (draining) {
      drain.stopping = true;
      if (drainS > 0) logger.info({ drain_s: drainS }, 'draining: not ready, still serving until the balancer has taken this replica out');
      await delay(drainS * 1000);
      drain.retryS = Math.ceil(DRAIN_RETRY_MS / 1000);
      sessions.endStreams(DRAIN_RETRY_MS);
    }
    //    2026-07-28 listen streams end gracefully either way (their clients listen again, elsewhere or later): they would hold step 2 open.
    this.front?.listens.closeAll();
    //    Calls waiting for their clients' input will not get it from this process: they end at their backends now.
    this.front?.rounds.close();
    let closing = draining ? undefined : this.closeListeners();
    // 2. Let forwarded requests finish, up to the timeout.
    const deadline = Date.now() + timeoutSeconds * 1000;
    const inFlight = router.inFlightCount;
    const finished = await within(Promise.all([router.whenIdle(), requests.whenIdle()]), deadline);
    // SSE answers are written to the session stream right after the router finishes.
    await new Promise((resolve) => setImmediate(resolve));
    if (!finished) logger.warn({ in_flight: router.inFlightCount }, 'shutdown timeout: abandoning requests still in flight');
    else if (inFlight > 0) logger.info({ completed: inFlight }, 'in-flight requests completed');
    // 3. Stop listening; a request that came in since gets its answer before its session is closed here.
    closing ??= this.closeListeners();
    if (finished) await within(requests.whenIdle(), deadline);
    // 4. Close client sessions here (ends their streams; shared ones stay in Redis), then drop any connection still open.
    await sessions.closeAll();
    for (const { app } of this.listeners()) app.server.closeAllConnections();
    await closing;
    // 5. The controller takes every backend to ShuttingDown and ends its process (or container).
    await this.controller.shutdown();
    await this.release();
    logger.info('gateway stopped');
    for (const listener of this.stoppedListeners) listener();
  }

  /** Releases what outlives the controller: skills, OAuth flows, plugins, leftover containers, then flushes what recorded it all. */
  private async release(): Promise<void> {
    const { logger, audit, telemetry } = this.observability;
    await this.runtime.skills.stop();
    this.runtime.auth.close();
    this.runtime.signIns.close();
    // Pins first: with the Redis store they are written over the cluster's connection.
    await this.runtime.pins.flushed();
    await this.runtime.shared?.cluster.close().catch((err: unknown) => logger.warn({ err }, 'could not close the session store connection'));
    await this.runtime.plugins.close().catch((err: unknown) => logger.warn({ err }, 'plugins did not unload'));
    // Each container is removed with its connection; this catches any an interrupted start left behind.
    await this.runtime.containers.removeOwnContainers().catch((err: unknown) => logger.warn({ err }, 'could not remove leftover containers'));
    await audit.close();
    await telemetry.shutdown();
  }

  private listeners(): Bound[] {
    const { management, ...mcp } = this.requireListening();
    return management ? [mcp, management] : [mcp];
  }

  private async closeListeners(): Promise<void> {
    await Promise.all(this.listeners().map(({ app }) => app.close()));
  }

  private requireListening(): Listening {
    if (!this.listening) throw new Error('the gateway is not listening');
    return this.listening;
  }
}

function longestConnectMs(config: GatewayConfig): number {
  return Math.max(0, ...Object.values(config.backends).map((b) => b.timeouts?.connect_s ?? DEFAULT_TIMEOUTS.connect_s)) * 1000;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Whether `work` finished before `deadline` (ms epoch). */
function within(work: Promise<unknown>, deadline: number): Promise<boolean> {
  return Promise.race([work.then(() => true), delay(Math.max(0, deadline - Date.now())).then(() => false)]);
}
