/**
 * The composition root. `Gateway.start` reads top to bottom as the start-up
 * order: load the config, build logging and telemetry, build the runtime,
 * listen, start the controller. `stop` is the same list backwards. Each step
 * is a named function below; the listener is bound before any backend starts,
 * so a port in use fails fast and starts nothing.
 */
import type { FastifyInstance } from 'fastify';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { loadConfigFile, locateConfigFile, type LoadedConfig, type SecretResolver } from '../controller/config/config-loader.js';
import { GatewayController } from '../controller/gateway-controller.js';
import { EventBus } from '../controller/event-bus.js';
import type { EventRecord } from '../schemas/records.js';
import { DEFAULT_TIMEOUTS, type GatewayConfig } from '../schemas/config.js';
import { GatewayError } from '../schemas/errors.js';
import { ServingBackends } from '../runtime/backends/serving-backends.js';
import { ContainerManager } from '../runtime/containers/container-manager.js';
import { InFlightCalls } from '../runtime/routing/in-flight-calls.js';
import { BackendTraffic, type BackendTrafficTargets } from '../runtime/routing/backend-traffic.js';
import { SkillManager } from '../runtime/skills/skill-manager.js';
import { skillSettingsOf } from '../runtime/skills/skill-settings.js';
import { skillsProvider } from '../runtime/skills/skills-provider.js';
import { RegistryClient } from '../runtime/registry/registry-client.js';
import { BackendAuthManager } from '../runtime/auth/backend-auth-manager.js';
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
import { SessionStore } from './mcp/session-store.js';
import { RequestTracker } from './mcp/request-tracker.js';
import { buildApp } from './app.js';
import type { ListenAddress } from './management/index.js';

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
  /** Wait for every backend's first connect attempt before start() resolves (default true). */
  waitForBackends?: boolean;
}

export type LogFormat = 'pretty' | 'json';

/** Steps 1–3's products: what the runtime is made of. */
interface Runtime {
  containers: ContainerManager;
  auth: BackendAuthManager;
  skills: SkillManager;
  registry: RegistryClient;
  /** Where the registry client reads the running config (it follows reloads). */
  followConfig(config: () => GatewayConfig): void;
  serving: ServingBackends;
  router: Router;
  subscriptions: ResourceSubscriptions;
  sessions: SessionStore;
  requests: RequestTracker;
}

interface Observability {
  logger: Logger;
  audit: AuditLog;
  telemetry: Telemetry;
  events: EventBus;
}

export class Gateway {
  private stopping?: Promise<void>;
  private readonly stoppedListeners: Array<() => void> = [];

  private constructor(
    readonly app: FastifyInstance,
    readonly controller: GatewayController,
    private readonly runtime: Runtime,
    private readonly observability: Observability,
    readonly url: string,
  ) {}

  static async start(opts: GatewayOptions = {}): Promise<Gateway> {
    const { loaded, resolveSecrets } = loadConfig(opts);
    const observability = await buildObservability(loaded.config, opts);
    const runtime = await buildRuntime(loaded.config, loaded.filePath, observability);
    const controller = new GatewayController(loaded, runtime.serving, observability.events, observability.logger, resolveSecrets, runtime.containers);
    followReloads(controller, runtime, observability.logger);
    runtime.router.backendPhase = (name) => controller.status.get(name)?.phase;
    runtime.followConfig(() => controller.config);
    // Skills are scanned before the listener opens: GET /skills answers from the first request.
    await runtime.skills.start().catch((err: unknown) => observability.logger.error({ err }, 'the skill manager failed to start'));
    runtime.serving.setLocal(skillsProvider(runtime.skills));

    let gateway: Gateway | undefined;
    const { app, url } = await listen(loaded.config, opts, controller, runtime, observability.logger, (timeoutS) => void gateway?.shutdown(timeoutS));
    await controller.start();
    if (opts.waitForBackends !== false) await controller.whenSettled(longestConnectMs(loaded.config) + 5000);
    gateway = new Gateway(app, controller, runtime, observability, url);
    return gateway;
  }

  get router(): Router {
    return this.runtime.router;
  }

  get sessions(): SessionStore {
    return this.runtime.sessions;
  }

  get serving(): ServingBackends {
    return this.runtime.serving;
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

  private async stop(timeoutSeconds: number): Promise<void> {
    const { logger } = this.observability;
    const { router, requests, sessions } = this.runtime;
    logger.info({ timeout_s: timeoutSeconds }, 'shutting down');
    // 1. Stop accepting: the listener closes, idle sockets go, new requests on open ones get 503.
    const closing = this.app.close();
    // 2. Let forwarded requests finish, up to the timeout.
    const inFlight = router.inFlightCount;
    const drained = Promise.all([router.whenIdle(), requests.whenIdle()]).then(() => true);
    const finished = await Promise.race([drained, delay(timeoutSeconds * 1000).then(() => false)]);
    // SSE answers are written to the session stream right after the router finishes.
    await new Promise((resolve) => setImmediate(resolve));
    if (!finished) logger.warn({ in_flight: router.inFlightCount }, 'shutdown timeout: abandoning requests still in flight');
    else if (inFlight > 0) logger.info({ completed: inFlight }, 'in-flight requests completed');
    // 3. Close client sessions (ends their streams), then drop any connection still open.
    await sessions.closeAll();
    this.app.server.closeAllConnections();
    await closing;
    // 4. The controller takes every backend to ShuttingDown and ends its process (or container).
    await this.controller.shutdown();
    await this.runtime.skills.stop();
    this.runtime.auth.close();
    // Each container is removed with its connection; this catches any an interrupted start left behind.
    await this.runtime.containers.removeOwnContainers().catch((err: unknown) => logger.warn({ err }, 'could not remove leftover containers'));
    // 5. Flush what recorded all of that.
    await this.observability.audit.close();
    await this.observability.telemetry.shutdown();
    logger.info('gateway stopped');
    for (const listener of this.stoppedListeners) listener();
  }
}

// --- 1. config ---

function loadConfig(opts: GatewayOptions): { loaded: LoadedConfig; resolveSecrets: SecretResolver } {
  const secrets = createSecretStore();
  const resolveSecrets = (value: string) => secrets.resolveString(value);
  const loaded = loadConfigFile(locateConfigFile(opts.configPath), { resolveSecrets });
  registerConfigSecrets(loaded.config, redactor);
  return { loaded, resolveSecrets };
}

function createSecretStore(): SecretStore {
  const providers = [new EnvSecretProvider()];
  const file = process.env.GATEWAY_SECRETS_FILE;
  return new SecretStore(file ? [...providers, new EncryptedFileSecretProvider(file)] : providers, redactor);
}

// --- 2. logging, audit, telemetry, events ---

async function buildObservability(config: GatewayConfig, opts: GatewayOptions): Promise<Observability> {
  const verbosity = opts.verbosity ?? 0;
  const logger =
    opts.logger ??
    createLogger({
      level: effectiveLevel(opts.logLevel ?? config.logging.level, verbosity),
      pretty: (opts.logFormat ?? (process.stdout.isTTY ? 'pretty' : 'json')) === 'pretty',
      file: config.logging.file,
      // Off the request path: no log call of a proxied request waits for the disk.
      fileSync: false,
    });
  const events = new EventBus(config.events.buffer_size);
  // Every backend event is also a log line, so the console tells the story of a start.
  events.subscribe((e) => logger[eventLogLevel(e, verbosity)]({ event: e.stage, backend: e.backend || undefined }, e.message));
  const audit = new AuditLog({
    enabled: config.audit.enabled,
    file: config.audit.file,
    maxSizeMb: config.audit.max_size_mb,
    backupCount: config.audit.backup_count,
    logger: auditMirror(logger, config),
  });
  const telemetry = await initTelemetry({ logger: logger.child({ component: 'telemetry' }) });
  return { logger, audit, telemetry, events };
}

/**
 * Audit records always go to the audit file. They are also printed as log
 * lines (at the `audit` level, which survives warn and error) only when asked:
 * `audit.console: true`, or a debug log level. A load test otherwise writes
 * hundreds of megabytes of them to stdout.
 */
function auditMirror(logger: Logger, config: GatewayConfig): Logger | undefined {
  if (!config.audit.console && !logger.isLevelEnabled('debug')) return undefined;
  const child = logger.child({ component: 'audit' });
  if (logger.level !== 'silent' && logger.levelVal > AUDIT_LEVEL) child.level = 'audit';
  return child;
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

// --- 3. runtime ---

async function buildRuntime(config: GatewayConfig, configPath: string, o: Observability): Promise<Runtime> {
  // Found once: with a runtime, stdio backends run in hardened containers (containers.enabled: auto).
  const containers = await ContainerManager.detect(config.containers);
  const warning = containers.startupWarning(config.backends);
  if (warning) o.logger.warn(warning);
  else if (containers.runtimeSummary) o.logger.info(containers.runtimeSummary, 'container runtime found: stdio backends run in hardened containers');

  const inFlight = new InFlightCalls();
  // Backend-initiated traffic (sampling, roots, notifications) goes to the client sessions.
  const traffic: BackendTraffic = new BackendTraffic(inFlight, (): BackendTrafficTargets => ({
    notifications: (backend, n, callers) => sessions.deliverBackendNotification(backend, n, callers),
    fallbackRequests: (req, signal, onprogress) => sessions.requestFromAnySession(req, signal, onprogress),
    notifyBackend: (backend, method, params) => void serving.get(backend)?.notify(method, params),
  }));
  // Outgoing OAuth: tokens per backend in <state>/tokens, flows started by POST /reauth.
  const auth = new BackendAuthManager({ log: o.logger.child({ component: 'oauth' }) });
  const serving: ServingBackends = new ServingBackends(traffic, o.logger.child({ component: 'backend' }), auth);
  const router = new Router(serving, inFlight);
  const subscriptions = new ResourceSubscriptions(router);
  const sessions: SessionStore = new SessionStore({ ttlSeconds: config.server.session_ttl, maxSessions: config.server.max_sessions }, subscriptions, o.logger);
  serving.on('registry', (_table, changed) => {
    sessions.broadcastListChanged(changed);
    void subscriptions.resync();
  });
  // Audit first (outermost), so it also sees what telemetry does; with both off the chain is empty.
  const interceptors: Interceptor[] = [];
  if (config.audit.enabled) interceptors.push(createAuditInterceptor(o.audit));
  if (o.telemetry.interceptor) interceptors.push(o.telemetry.interceptor);
  router.setInterceptors(interceptors);

  // Skills: served through the route table; each workflow step is a tool call through the router (audited, naming its step).
  const skills = new SkillManager({
    ...skillSettingsOf(config, configPath),
    logger: o.logger,
    callStep: (tool, args, step) =>
      router.callTool(
        { ...(step.caller ?? SKILL_CALLER), metadata: { skill: step.skill, workflow: step.workflow, step: step.step } },
        { name: tool, arguments: args },
        { signal: step.signal },
      ),
    toolAvailable: (name) => serving.snapshot.tools.has(name),
  });
  skills.onChange((change) => {
    for (const uri of change.updatedUris) {
      const route = router.resourceRoute(uri);
      if (route) traffic.onNotification(route.backend, { method: 'notifications/resources/updated', params: { uri } });
    }
  });
  const registry = new RegistryClient(() => currentConfig().registries, o.logger.child({ component: 'registry' }));
  let currentConfig = () => config;
  return {
    containers,
    auth,
    serving,
    router,
    subscriptions,
    sessions,
    requests: new RequestTracker(),
    skills,
    registry,
    followConfig: (next) => (currentConfig = next),
  };
}

/** Who workflow steps are made for when the workflow was not started by a client session. */
const SKILL_CALLER = { sessionId: 'skills', transport: 'management' } as const;

/**
 * A reload may change session limits and bring new literal credentials
 * (headers, env) to redact; a completed OAuth flow reconnects its backend.
 */
function followReloads(controller: GatewayController, runtime: Runtime, logger: Logger): void {
  runtime.auth.on('reauthenticated', (name) => {
    controller.events.emit({ stage: 'reauthenticated', backend: name, message: `${name} is authorized again; reconnecting` });
    void controller.reconnect(name).catch((err: unknown) => logger.warn({ err, backend: name }, 'reconnect after re-authentication failed'));
  });
  runtime.auth.on('reauth_failed', (name, reason) => {
    controller.events.emit({
      stage: 'reauth_failed',
      backend: name,
      severity: 'error',
      message: `${name}: re-authentication failed: ${reason}`,
      details: { reason },
    });
  });
  let names = new Set(Object.keys(controller.config.backends));
  controller.onConfigApplied((config) => {
    for (const name of names) if (!Object.hasOwn(config.backends, name)) runtime.auth.forget(name);
    names = new Set(Object.keys(config.backends));
    runtime.containers.updateConfig(config.containers);
    runtime.skills.configure(skillSettingsOf(config, controller.loaded.filePath)).catch((err: unknown) => logger.error({ err }, 'skills settings not applied'));
    runtime.sessions.setLimits({ ttlSeconds: config.server.session_ttl, maxSessions: config.server.max_sessions });
    try {
      registerConfigSecrets(config, redactor);
    } catch (err) {
      logger.error({ err }, 'reloaded config holds credentials too short to redact; they may appear in logs');
    }
  });
}

// --- 4. listen ---

async function listen(
  config: GatewayConfig,
  opts: GatewayOptions,
  controller: GatewayController,
  runtime: Runtime,
  logger: Logger,
  requestShutdown: (timeoutS?: number) => void,
): Promise<{ app: FastifyInstance; url: string }> {
  const host = opts.host ?? config.server.host;
  const port = opts.port ?? config.server.port;
  let listening: ListenAddress = { host, port, url: '' };
  const app = await buildApp({
    logger,
    bindHost: host,
    allowedPeers: () => ({ hosts: controller.config.server.allowed_hosts, origins: controller.config.server.allowed_origins }),
    mcp: { ...runtime, pool: runtime.serving, validator: new AjvJsonSchemaValidator() },
    management: {
      controller,
      router: runtime.router,
      pool: runtime.serving,
      sessions: runtime.sessions,
      events: controller.events,
      skills: runtime.skills,
      registry: runtime.registry,
      auth: runtime.auth,
      listenAddress: () => listening,
      requestShutdown,
    },
  });
  try {
    await app.listen({ host, port });
  } catch (err) {
    await app.close().catch(() => undefined);
    throw listenError(host, port, err);
  }
  const address = app.server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${boundPort}`;
  listening = { host, port: boundPort, url };
  runtime.sessions.startReaper();
  return { app, url };
}

/** `cannot listen on 127.0.0.1:9000: address in use`: one line an operator can act on. */
function listenError(host: string, port: number, err: unknown): GatewayError {
  const code = (err as { code?: string }).code;
  const why =
    code === 'EADDRINUSE'
      ? 'address in use'
      : code === 'EACCES'
        ? 'permission denied'
        : code === 'EADDRNOTAVAIL'
          ? 'address not available'
          : (err as Error).message;
  return new GatewayError('listen_failed', `cannot listen on ${host.includes(':') ? `[${host}]` : host}:${port}: ${why}`, { host, port, code });
}

function longestConnectMs(config: GatewayConfig): number {
  return Math.max(0, ...Object.values(config.backends).map((b) => b.timeouts?.connect_s ?? DEFAULT_TIMEOUTS.connect_s)) * 1000;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
