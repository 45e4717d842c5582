/**
 * Step 3 of start-up: the runtime and the controller, each built once with
 * every dependency passed to its constructor, in an order where nothing is
 * used before it exists. Backend → client traffic flows one way: serving
 * set → backend traffic → fan-out → session table; the other edges (a new
 * route table, a session that ended, a skill file that changed) are events.
 */
import type { BackendSpec } from '../schemas/config.js';
import type { LoadedConfig, SecretResolver } from '../controller/config/config-loader.js';
import { DesiredState } from '../controller/config/desired-state.js';
import { GatewayController } from '../controller/gateway-controller.js';
import { followRoutes } from './route-listeners.js';
import { reportDefinitionPins } from '../controller/status/definition-reporter.js';
import { createStatusStore } from '../controller/status/status-store.js';
import { BackendAuthManager } from '../runtime/auth/backend-auth-manager.js';
import { ServingBackends } from '../runtime/backends/serving-backends.js';
import { TokenExchanger } from '../runtime/auth/token-exchange.js';
import { UserSignIns } from '../runtime/auth/user-sign-ins.js';
import { FileUserTokenVault, lazyUserTokensKey, userTokensDir } from '../runtime/auth/user-token-vault.js';
import { DefinitionPins } from '../runtime/pinning/definition-pins.js';
import { FilePinStore } from '../runtime/pinning/file-pin-store.js';
import { pinsFile } from '../runtime/state-dir.js';
import { ContainerManager } from '../runtime/containers/container-manager.js';
import { createAuditInterceptor } from '../runtime/observability/audit/audit-interceptor.js';
import type { Redactor } from '../runtime/observability/logging/redactor.js';
import { RegistryClient } from '../runtime/registry/registry-client.js';
import { BackendTraffic } from '../runtime/routing/backend-traffic.js';
import { ClientFanout } from '../runtime/routing/client-fanout.js';
import { ListChangesRelay } from '../runtime/cluster/list-changes-relay.js';
import { InFlightCalls } from '../runtime/routing/in-flight-calls.js';
import type { Interceptor } from '../runtime/routing/operation.js';
import { ResourceSubscriptions } from '../runtime/routing/resource-subscriptions.js';
import { Router } from '../runtime/routing/router.js';
import type { FirstConnects } from '../runtime/routing/first-connects.js';
import { ToolOptimizer } from '../runtime/optimizer/tool-optimizer.js';
import { optimizerSettingsOf } from '../runtime/optimizer/settings.js';
import { SubscriptionIndex } from '../runtime/routing/subscription-index.js';
import { GuardedRelay } from '../runtime/plugins/guarded-relay.js';
import { PluginSet } from '../runtime/plugins/plugin-set.js';
import { SkillManager } from '../runtime/skills/skill-manager.js';
import { skillSettingsOf } from '../runtime/skills/skill-settings.js';
import { skillsProvider } from '../runtime/skills/skills-provider.js';
import { MemorySessionTable } from '../api/mcp/memory-session-table.js';
import type { SessionTable } from '../api/mcp/session-table.js';
import { RequestTracker } from '../api/mcp/request-tracker.js';
import { replicaId } from '../runtime/cluster/replica.js';
import { CallerView } from '../runtime/access/caller-view.js';
import { AccessControl } from '../runtime/access/access-control.js';
import { IncomingAuth } from '../runtime/access/incoming-auth.js';
import type { Observability } from './observability.js';
import type { SharedSessions } from './session-store.js';

export interface Runtime {
  controller: GatewayController;
  containers: ContainerManager;
  auth: BackendAuthManager;
  /** Per-user consent (`on_behalf_of.type: user_oauth`): each user's sign-in to a backend and its tokens. */
  signIns: UserSignIns;
  skills: SkillManager;
  registry: RegistryClient;
  serving: ServingBackends;
  /** Pinned tool and prompt definitions (docs/tool-pinning.md). */
  pins: DefinitionPins;
  router: Router;
  optimizer: ToolOptimizer;
  subscriptions: ResourceSubscriptions;
  sessions: SessionTable;
  requests: RequestTracker;
  /** `sessions.replay_s` in ms. */
  replayMs: number;
  /** This replica's id. */
  replicaId: string;
  /** With `sessions.store: redis`: this replica's part of the cluster, the link sessions' transports use, the table. */
  shared?: SharedSessions;
  /**
   * Set by a graceful shutdown with shared sessions: `stopping` at once (not
   * ready, still serving everything), then `retryS` (no new session or
   * stream: come back in this many seconds, to another replica).
   */
  drain: { stopping: boolean; retryS?: number };
  /** The plugin chain's plugins (`plugins:`); a reload rebuilds the chain. */
  plugins: PluginSet;
  /** Who a client is (`incoming_auth`) and what it may use (`authorization`). */
  incomingAuth: IncomingAuth;
  access: AccessControl;
  fanout: ClientFanout;
  /** What each caller may see and use (lists, the optimizer, reads). */
  view: CallerView;
  /** Backends still in their first connect: lists wait for them (bounded), and so does a name none serves yet. */
  firstConnects: FirstConnects;
}

/** Who workflow steps are made for when the workflow was not started by a client session. */
const SKILL_CALLER = { sessionId: 'skills', transport: 'management' } as const;

export interface RuntimeOptions {
  /** Where definition pins are kept; default `<state>/pins.json`. */
  pinsFile?: string;
  /** Where the sealed per-user tokens and their key are kept; default `<state>/user-tokens`. */
  userTokensDir?: string;
}

export async function buildRuntime(
  loaded: LoadedConfig,
  resolveSecrets: SecretResolver,
  o: Observability,
  redactor: Redactor,
  opts: RuntimeOptions = {},
): Promise<Runtime> {
  const config = loaded.config;
  // The Redis client and everything over it are loaded only with the Redis store: the memory store costs what it did.
  const replica = replicaId();
  const limits = { ttlSeconds: config.server.session_ttl, maxSessions: config.server.max_sessions };
  const shared = config.sessions.store === 'redis' ? (await import('./session-store.js')).buildSessionTable(config, limits, replica, o) : undefined;
  // Then: pins that cannot be read stop the start before anything else is started. With Redis, the replicas share them.
  const pinStore = shared?.cluster.pins ?? new FilePinStore(opts.pinsFile ?? pinsFile(), o.logger);
  const pins = await DefinitionPins.open(pinStore, config.security.tool_pinning).catch(async (err: unknown) => {
    await shared?.cluster.close();
    throw err;
  });
  // Found once: with a runtime, stdio backends run in hardened containers (containers.enabled: auto).
  const containers = await ContainerManager.detect(config.containers);
  const warning = containers.startupWarning(config.backends);
  if (warning) o.logger.warn(warning);
  else if (containers.runtimeSummary) o.logger.info(containers.runtimeSummary, 'container runtime found: stdio backends run in hardened containers');

  // Client side: the sessions, who is subscribed to what, and the fan-out that reaches them.
  const sessions: SessionTable = shared?.table ?? new MemorySessionTable(limits, replica, o.logger);
  const subscriptionIndex = new SubscriptionIndex();
  // Who a client is (`incoming_auth`) and what it may use (`authorization`): backends reach only their callers while policies are on.
  const incomingAuth = new IncomingAuth(config.incoming_auth);
  const access = new AccessControl(config);
  const fanout = new ClientFanout(sessions, subscriptionIndex, o.logger, () => access.enabled);

  // Backend side: desired and observed state, the connections in service, the controller.
  const desired = new DesiredState(config.backends, config.conflict_resolution);
  const status = createStatusStore(o.events);
  const inFlight = new InFlightCalls();
  // Outgoing OAuth: tokens per backend in <state>/tokens, flows started by POST /reauth.
  const auth = new BackendAuthManager({ log: o.logger.child({ component: 'oauth' }), redactor });
  // The plugin chain: its circuit breakers' states show in the backend records, their openings and closings as events.
  // With shared sessions, rate_limiter counts in Redis too: its limits hold for the cluster.
  const rateStore = shared && ((limiter: string) => shared.cluster.rateCounters(limiter));
  const plugins = new PluginSet({ log: o.logger.child({ component: 'plugins' }), events: (e) => o.events.emit(e), rateStore });
  // What backends tell clients (log messages) passes the plugin chain first, as their results do.
  const traffic = new BackendTraffic(inFlight, new GuardedRelay(fanout, () => plugins.chain));
  // Per-user tokens (user_oauth), sealed at rest: in Redis when the sessions are, so every replica serves a user who signed in through one.
  // With `server.public_url` the browser comes back to the gateway (GET /oauth/callback); with shared sessions any replica finishes the sign-in.
  const tokensDir = opts.userTokensDir ?? userTokensDir();
  const sealingKey = lazyUserTokensKey(tokensDir);
  const signIns = new UserSignIns({
    vault: shared ? shared.cluster.userTokens(sealingKey) : new FileUserTokenVault(tokensDir, sealingKey),
    pending: shared?.cluster.pendingSignIns(sealingKey),
    publicUrl: (): string | undefined => controller.config.server.public_url,
    specOf: (name: string): BackendSpec | undefined => controller.config.backends[name],
    redactor,
    log: o.logger.child({ component: 'oauth' }),
  });
  const callerTokens = { exchanger: new TokenExchanger(), signIns };
  const serving = new ServingBackends(desired, traffic, o.logger.child({ component: 'backend' }), auth, callerTokens);
  const circuitOf = (backend: string) => plugins.circuitOf(backend);
  const controller = new GatewayController({ loaded, desired, status, serving, events: o.events, log: o.logger, resolveSecrets, containers, circuitOf });
  // Trust on first use for definitions: checked each time the route table is built (a catalog changed), never per call.
  reportDefinitionPins(pins, o.events, o.logger.child({ component: 'pinning' }));
  serving.reviewDefinitions(pins);
  pins.on('changed', () => serving.refresh());

  // Routing: every client operation, checked against the policies, through audit and telemetry, and tool calls, prompts and reads through the plugins.
  const router = new Router(serving, inFlight, (name) => status.view.get(name)?.phase, access, controller.firstConnects);
  router.setInterceptors(interceptors(config.audit.enabled, o));
  await plugins.apply(config.plugins);
  router.setPlugins(plugins.chain);
  const subscriptions = new ResourceSubscriptions(router, subscriptionIndex);
  sessions.onEnded((id) => subscriptions.dropSession(id));
  // Shared sessions: the replica holding a session's GET stream keeps its backends subscribed for it.
  shared?.table.onSubscriptions((id, uris) => void subscriptions.sync(id, uris));
  // Tool search (find_tool, call_tool): with it on, clients hear of a tool list change only when what they see changes.
  const optimizer = new ToolOptimizer(serving, router, (backend) => desired.get(backend)?.group ?? 'default', optimizerSettingsOf(config));
  optimizer.on('toolsListChanged', () => fanout.listsChanged(new Set(['tools'])));
  followRoutes(serving, { controller, optimizer, fanout, subscriptions });
  // Shared sessions: a 2026-07-28 listen stream hears the list changes of every replica, not only of the one holding it.
  if (shared) {
    const { bus, keys, tag } = shared.cluster;
    const relay = new ListChangesRelay({
      bus,
      channel: keys.listsChanged,
      tag,
      routes: () => serving.routes,
      tell: (changed) => fanout.tellListeners(changed),
    });
    fanout.relayListens(relay);
    relay.start();
  }

  const skills = buildSkills(loaded, o, router, serving);
  return {
    controller,
    containers,
    auth,
    signIns,
    skills,
    registry: new RegistryClient(() => controller.config.registries, o.logger.child({ component: 'registry' })),
    serving,
    pins,
    router,
    optimizer,
    subscriptions,
    sessions,
    requests: new RequestTracker(),
    replayMs: config.sessions.replay_s * 1000,
    replicaId: replica,
    shared,
    drain: { stopping: false },
    plugins,
    incomingAuth,
    access,
    fanout,
    view: new CallerView(serving, access, optimizer),
    firstConnects: controller.firstConnects,
  };
}

/** The sealed per-user tokens: the cluster's Redis with shared sessions, else files in the state folder. */
/** Audit first (outermost), so it also sees what telemetry does; with both off the chain is empty. */
function interceptors(auditEnabled: boolean, o: Observability): Interceptor[] {
  const chain: Interceptor[] = [];
  if (auditEnabled) chain.push(createAuditInterceptor(o.audit));
  if (o.telemetry.interceptor) chain.push(o.telemetry.interceptor);
  return chain;
}

/**
 * Skills: served through the route table as a local provider; each workflow
 * step is a tool call through the router (audited, naming its step); an
 * edited skill file is announced to its subscribers like a backend's update.
 */
function buildSkills(loaded: LoadedConfig, o: Observability, router: Router, serving: ServingBackends): SkillManager {
  const skills = new SkillManager({
    ...skillSettingsOf(loaded.config, loaded.filePath),
    logger: o.logger,
    callStep: (tool, args, step) =>
      router.callTool(
        { ...(step.caller ?? SKILL_CALLER), metadata: { skill: step.skill, workflow: step.workflow, step: step.step } },
        { name: tool, arguments: args },
        { signal: step.signal },
      ),
    toolAvailable: (name) => serving.routes.tools.has(name),
  });
  serving.serveLocal(skillsProvider(skills));
  skills.onChange((change) => {
    for (const uri of change.updatedUris) {
      const route = router.resourceRoute(uri);
      if (route) serving.notifyFrom(route.backend, { method: 'notifications/resources/updated', params: { uri } });
    }
  });
  return skills;
}
