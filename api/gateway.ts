/**
 * The composition root: wires config, logging, secrets, the backend pool,
 * router, controller, audit, telemetry and the HTTP server into one running
 * gateway, and takes it down again in order.
 */
import type { FastifyInstance } from 'fastify';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { loadConfigFile, locateConfigFile, type LoadedConfig } from '../controller/config-loader.js';
import { GatewayController } from '../controller/gateway-controller.js';
import { EventBus } from '../controller/event-bus.js';
import type { EventRecord } from '../schemas/records.js';
import { ServingBackends } from '../runtime/backends/serving-backends.js';
import { Router } from '../runtime/routing/router.js';
import { ResourceSubscriptions } from '../runtime/routing/resource-subscriptions.js';
import { AUDIT_LEVEL, createLogger, type Logger } from '../runtime/observability/logging/logger.js';
import { redactor } from '../runtime/observability/logging/redactor.js';
import { SecretStore } from '../runtime/secrets/secret-store.js';
import { EnvSecretProvider } from '../runtime/secrets/env-provider.js';
import { EncryptedFileSecretProvider } from '../runtime/secrets/encrypted-file-provider.js';
import { registerConfigSecrets } from '../runtime/secrets/register-config-secrets.js';
import { AuditLog } from '../runtime/observability/audit/audit-log.js';
import { createAuditInterceptor } from '../runtime/observability/audit/audit-interceptor.js';
import { initTelemetry, type Telemetry } from '../runtime/observability/telemetry/index.js';
import type { Interceptor } from '../runtime/routing/operation.js';
import { SkillManager } from '../runtime/skills/skill-manager.js';
import { skillSettingsOf } from '../runtime/skills/skill-settings.js';
import { RegistryClient } from '../runtime/registry/registry-client.js';
import { SessionStore } from './mcp/session-store.js';
import { RequestTracker } from './mcp/request-tracker.js';
import { buildApp } from './app.js';

export interface GatewayOptions {
  configPath?: string;
  /** Overrides server.host / server.port from the config. */
  host?: string;
  port?: number;
  /** Overrides logging.level from the config. */
  logLevel?: string;
  /** Console format: `pretty` (for a person) or `json` (JSON lines). Default: pretty when stdout is a terminal. */
  logFormat?: LogFormat;
  logger?: Logger;
  /** 0: connection milestones only; 1 (-v): every connection step; 2 (-vv): also backend process output. */
  verbosity?: number;
  /** Wait for every backend's first connect attempt before listening (default true). */
  waitForBackends?: boolean;
}

export type LogFormat = 'pretty' | 'json';

export class Gateway {
  private stopping?: Promise<void>;
  private readonly stoppedListeners: Array<() => void> = [];

  private constructor(
    readonly app: FastifyInstance,
    readonly controller: GatewayController,
    readonly pool: ServingBackends,
    readonly router: Router,
    readonly sessions: SessionStore,
    private readonly requests: RequestTracker,
    readonly events: EventBus,
    readonly audit: AuditLog,
    readonly telemetry: Telemetry,
    readonly logger: Logger,
    readonly url: string,
    readonly skills: SkillManager,
    readonly registry: RegistryClient,
  ) {}

  static async start(opts: GatewayOptions = {}): Promise<Gateway> {
    const secrets = createSecretStore();
    const resolveSecrets = (value: string) => secrets.resolveString(value);
    const loaded: LoadedConfig = loadConfigFile(locateConfigFile(opts.configPath), { resolveSecrets });
    const config = loaded.config;
    registerConfigSecrets(config, redactor);

    const logger =
      opts.logger ??
      createLogger({
        level: effectiveLevel(opts.logLevel ?? config.logging.level, opts.verbosity ?? 0),
        pretty: (opts.logFormat ?? (process.stdout.isTTY ? 'pretty' : 'json')) === 'pretty',
        file: config.logging.file,
        // Off the request path: the audit line of every operation goes to this file too.
        fileSync: false,
      });
    const events = new EventBus(config.events.buffer_size);
    // Every backend event is also a log line, so the console tells the story of a start.
    events.subscribe((e) => logger[eventLogLevel(e, opts.verbosity ?? 0)]({ event: e.stage, backend: e.backend || undefined }, e.message));

    // The pool hands backend-initiated traffic to the router, which needs the pool to route: tie the knot lazily.
    let router!: Router;
    const pool = new ServingBackends(
      {
        onServerRequest: (backend, request, signal) => router.onServerRequest(backend, request, signal),
        onNotification: (backend, notification) => router.onNotification(backend, notification),
      },
      logger.child({ component: 'backend' }),
    );
    router = new Router(pool);
    const subscriptions = new ResourceSubscriptions(router);
    const sessions = new SessionStore(config.server.session_ttl, subscriptions, logger);
    const requests = new RequestTracker();
    router.notificationSink = (backend, n) => sessions.deliverBackendNotification(backend, n);
    router.fallbackRequestTarget = (req, signal, onprogress) => sessions.requestFromAnySession(req, signal, onprogress);
    pool.on('registry', (_snapshot, changed) => {
      sessions.broadcastListChanged(changed);
      void subscriptions.resync();
    });

    const audit = new AuditLog({
      enabled: config.audit.enabled,
      file: config.audit.file,
      maxSizeMb: config.audit.max_size_mb,
      backupCount: config.audit.backup_count,
      logger: auditLogger(logger),
    });
    const telemetry = await initTelemetry({ logger: logger.child({ component: 'telemetry' }) });
    // Audit first (outermost), so it also sees what telemetry does; with both
    // off the chain is empty and a request costs nothing extra.
    const interceptors: Interceptor[] = [];
    if (config.audit.enabled) interceptors.push(createAuditInterceptor(audit));
    if (telemetry.interceptor) interceptors.push(telemetry.interceptor);
    router.setInterceptors(interceptors);

    const controller = new GatewayController(loaded, pool, events, logger, resolveSecrets);
    // A reload may bring new literal credentials (headers, env); `secret:`
    // values are registered as they resolve, these only once the reload applied.
    events.subscribe((e) => {
      if (e.stage !== 'reload') return;
      sessions.setTtl(controller.config.server.session_ttl);
      try {
        registerConfigSecrets(controller.config, redactor);
      } catch (err) {
        logger.error({ err }, 'reloaded config holds credentials too short to redact; they may appear in logs');
      }
    });
    // --- skills and registries (issue 15) ---
    // Workflow steps go through the Router like any client call (routing, timeout, audit).
    const skills = new SkillManager({
      ...skillSettingsOf(config, loaded.filePath),
      logger,
      callStep: (tool, args, step) => router.callTool(step.caller ?? SKILL_CALLER, { name: tool, arguments: args }, { signal: step.signal }),
      toolAvailable: (name) => pool.snapshot.tools.has(name),
    });
    const registry = new RegistryClient(() => controller.config.registries, logger.child({ component: 'registry' }));
    events.subscribe((e) => {
      if (e.stage !== 'reload') return;
      skills.configure(skillSettingsOf(controller.config, controller.loaded.filePath)).catch((err) => logger.error({ err }, 'skills settings not applied'));
    });
    // Scanned while backends connect; GET /skills answers 503 until it is done.
    const skillsStarted = skills.start().catch((err) => logger.error({ err }, 'skill manager failed to start'));
    // --- end skills and registries ---

    await controller.start();
    if (opts.waitForBackends !== false) {
      const longestConnect = Math.max(0, ...Object.values(config.backends).map((b) => b.timeouts?.connect_s ?? 30));
      await controller.whenSettled((longestConnect + 5) * 1000);
    }

    const host = opts.host ?? config.server.host;
    const port = opts.port ?? config.server.port;
    let listening = { host, port, url: '' };
    let gateway: Gateway | undefined;
    const app = await buildApp({
      logger,
      mcp: { router, pool, subscriptions, sessions, requests, validator: new AjvJsonSchemaValidator() },
      management: {
        controller,
        router,
        pool,
        sessions,
        events,
        skills,
        registry,
        listenAddress: () => listening,
        requestShutdown: (timeoutS) => void gateway?.shutdown(timeoutS),
      },
    });
    await skillsStarted;
    await app.listen({ host, port });
    const address = app.server.address();
    const boundPort = typeof address === 'object' && address ? address.port : port;
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${boundPort}`;
    listening = { host, port: boundPort, url };
    sessions.startReaper();
    gateway = new Gateway(app, controller, pool, router, sessions, requests, events, audit, telemetry, logger, url, skills, registry);
    return gateway;
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

  private async stop(timeoutSeconds: number): Promise<void> {
    this.logger.info({ timeout_s: timeoutSeconds }, 'shutting down');
    // 1. Stop accepting: the listener closes, idle sockets go, new requests on open ones get 503.
    const closing = this.app.close();
    // 2. Let forwarded requests finish, up to the timeout.
    const inFlight = this.router.inFlightCount;
    const drained = Promise.all([this.router.whenIdle(), this.requests.whenIdle()]).then(() => true);
    const finished = await Promise.race([drained, delay(timeoutSeconds * 1000).then(() => false)]);
    // SSE answers are written to the session stream right after the router finishes.
    await new Promise((resolve) => setImmediate(resolve));
    if (!finished) this.logger.warn({ in_flight: this.router.inFlightCount }, 'shutdown timeout: abandoning requests still in flight');
    else if (inFlight > 0) this.logger.info({ completed: inFlight }, 'in-flight requests completed');
    // 3. Close client sessions (ends their streams), then drop any connection still open.
    await this.sessions.closeAll();
    this.app.server.closeAllConnections();
    await closing;
    await this.controller.shutdown();
    await this.skills.stop();
    await this.audit.close();
    await this.telemetry.shutdown();
    this.logger.info('gateway stopped');
    for (const listener of this.stoppedListeners) listener();
  }

  /** Called once the gateway has stopped (signal, POST /shutdown or a direct call). */
  onStopped(listener: () => void): void {
    this.stoppedListeners.push(listener);
  }
}

/**
 * The logger the audit trail mirrors its records on. Audit lines must survive
 * any level above `audit` (warn, error, fatal): only `silent` turns them off,
 * as does `audit.enabled: false`.
 */
function auditLogger(logger: Logger): Logger {
  const child = logger.child({ component: 'audit' });
  if (logger.level !== 'silent' && logger.levelVal > AUDIT_LEVEL) child.level = 'audit';
  return child;
}

/** Who workflow steps are made for when the workflow has no client caller. */
const SKILL_CALLER = { sessionId: 'skills', transport: 'management' } as const;

function createSecretStore(): SecretStore {
  const providers = [new EnvSecretProvider()];
  const file = process.env.GATEWAY_SECRETS_FILE;
  return new SecretStore(file ? [...providers, new EncryptedFileSecretProvider(file)] : providers, redactor);
}

/**
 * -vv needs debug (backend process output is logged at debug), -v needs info
 * (connection progress): verbosity can make the configured level more
 * verbose, never less.
 */
function effectiveLevel(level: string, verbosity: number): string {
  const floor = verbosity >= 2 ? 'debug' : verbosity === 1 ? 'info' : undefined;
  if (floor === undefined) return level;
  const order = ['trace', 'debug', 'info', 'warn', 'audit', 'error', 'fatal', 'silent'];
  const rank = order.indexOf(level);
  return rank !== -1 && rank < order.indexOf(floor) ? level : floor;
}

/** Progress steps are debug noise unless -v asked for them; failures always show. */
const PROGRESS_STAGES = new Set(['registered', 'connecting', 'phase_changed', 'retry_scheduled']);

function eventLogLevel(e: EventRecord, verbosity: number): 'debug' | 'info' | 'warn' | 'error' {
  if (e.severity === 'error') return 'error';
  if (PROGRESS_STAGES.has(e.stage)) return verbosity >= 1 ? 'info' : 'debug';
  return e.severity === 'warning' ? 'warn' : e.severity === 'debug' ? 'debug' : 'info';
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
