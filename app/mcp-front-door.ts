/**
 * Part of step 4 of start-up: what the MCP endpoints serve with. The method
 * table both revisions share; for 2025-11-25 sessions, where their changes
 * go (this process, or the shared store); for 2026-07-28, the stateless
 * server, its listen streams, the clients it has seen and the calls
 * waiting for their input.
 */
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import type { GatewayController } from '../controller/gateway-controller.js';
import type { McpContext } from '../api/mcp/mcp-context.js';
import { sharedMethods } from '../api/mcp/methods/shared-methods.js';
import { LocalSessionChanges } from '../api/mcp/local-session-changes.js';
import { ExchangeTransport } from '../api/mcp/stateless/exchange-transport.js';
import { ListenStreams } from '../api/mcp/stateless/listen-streams.js';
import { RecentClients } from '../api/mcp/stateless/recent-clients.js';
import { createStatelessServer } from '../api/mcp/stateless/stateless-server.js';
import { modernHandler } from '../api/mcp/stateless/modern-handler.js';
import { KnownEnvelopes } from '../api/mcp/stateless/known-envelopes.js';
import { DirectCalls } from '../api/mcp/stateless/direct-calls.js';
import { StatelessDispatch } from '../api/mcp/stateless/stateless-dispatch.js';
import type { Runtime } from './runtime.js';
import type { Logger } from '../runtime/observability/logging/logger.js';
import type { StatelessRounds } from '../runtime/rounds/stateless-rounds.js';
import { buildInputRounds } from './input-rounds.js';
import { TaskRoutes } from '../runtime/tasks/task-routes.js';
import { TaskHandles } from '../runtime/tasks/task-handles.js';
import { LEGACY_TASKS_CAPABILITY, MODERN_TASKS_CAPABILITY, REUSED_TASK_METHODS, withTaskMethods } from '../api/mcp/methods/task-methods.js';
import { GATEWAY_CAPABILITIES } from '../api/mcp/gateway-capabilities.js';

export interface McpFrontDoor {
  context: McpContext;
  /** Open `subscriptions/listen` streams: ended gracefully at shutdown. */
  listens: ListenStreams;
  /** Clients seen without a session (GET /manage/v1/clients). */
  clients: RecentClients;
  /** Calls of 2026-07-28 clients waiting for their input: cancelled at shutdown. */
  rounds: StatelessRounds;
}

export async function buildMcpFrontDoor(runtime: Runtime, controller: GatewayController, log: Logger): Promise<McpFrontDoor> {
  const { rounds, seal } = buildInputRounds(runtime, controller, log.child({ component: 'input-rounds' }));
  // Tasks enter the call path here, as methods of the table both revisions share (api/mcp/methods/task-methods.ts).
  const tasks = new TaskRoutes(runtime.router, runtime.serving, new TaskHandles(seal));
  const shared = sharedMethods({ router: runtime.router, view: runtime.view, optimizer: runtime.optimizer, firstConnects: runtime.firstConnects });
  const methods = withTaskMethods(shared, tasks);
  const listens = new ListenStreams({ fanout: runtime.fanout, subscriptions: runtime.subscriptions, router: runtime.router, view: runtime.view });
  const transport = new ExchangeTransport();
  const clients = new RecentClients(runtime.replicaId, () => rounds.waitingCallers());
  const cacheTtlMs = () => controller.config.server.cache_ttl_s * 1000;
  const handle = modernHandler({ methods, listens, clients, rounds, cacheTtlMs, personal: () => runtime.view.personal });
  const envelopes = new KnownEnvelopes();
  await createStatelessServer(
    {
      handle,
      envelopes,
      cacheTtlMs,
      capabilities: () => (tasks.offered() ? { ...GATEWAY_CAPABILITIES, ...MODERN_TASKS_CAPABILITY } : GATEWAY_CAPABILITIES),
      schemaGated: REUSED_TASK_METHODS,
    },
    transport,
  );
  const stateless = new StatelessDispatch(new DirectCalls(handle, envelopes), transport);
  const context: McpContext = {
    methods,
    router: runtime.router,
    serving: runtime.serving,
    view: runtime.view,
    validator: new AjvJsonSchemaValidator(),
    changes: runtime.sessions.shared ?? new LocalSessionChanges(runtime.subscriptions),
    sessions: runtime.sessions,
    incomingAuth: runtime.incomingAuth,
    requests: runtime.requests,
    replayMs: runtime.replayMs,
    cluster: runtime.shared?.link,
    stateless,
    drainingRetryS: () => runtime.drain.retryS,
    capabilities: () => (tasks.offered() ? { ...GATEWAY_CAPABILITIES, ...LEGACY_TASKS_CAPABILITY } : GATEWAY_CAPABILITIES),
  };
  return { context, listens, clients, rounds };
}
