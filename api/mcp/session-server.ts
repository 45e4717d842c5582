/**
 * The SDK Server behind one client session. Every MCP method except
 * initialize and ping (handled by the SDK) goes through one fallback handler
 * that routes it to the backends: no per-request schema parsing, and results
 * pass through exactly as the backend produced them.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  LoggingLevelSchema,
  McpError,
  type JSONRPCRequest,
  type LoggingLevel,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Router } from '../../runtime/routing/router.js';
import type { ServingBackends } from '../../runtime/backends/serving-backends.js';
import type { ResourceSubscriptions } from '../../runtime/routing/resource-subscriptions.js';
import type { ToolOptimizer, ToolVisibility } from '../../runtime/optimizer/tool-optimizer.js';
import type { RouteTable } from '../../runtime/routing/route-table.js';
import type { CallerContext, ForwardOptions, JsonObject } from '../../runtime/routing/caller.js';
import { GATEWAY_NAME, GATEWAY_VERSION } from '../../runtime/version.js';
import { cachedListResult } from '../../runtime/transports/json-rpc.js';
import { toJsonRpcError } from '../error-mapping.js';
import { BadRequestError, RequestCancelledError, ResourceNotFoundError } from '../../schemas/errors.js';
import { RpcCode } from '../../schemas/json-rpc-codes.js';
import { abortReasonText } from '../../runtime/backends/backend-errors.js';
import type { ClientSession } from './client-session.js';
import { PASSTHROUGH } from '../../runtime/transports/passthrough-schema.js';
import type { SharedSessionState } from './shared-session-state.js';
import type { AccessControl } from '../../runtime/access/access-control.js';
import { listAfterFirstConnects, type FirstConnects } from '../../runtime/routing/first-connects.js';

export interface SessionServerDeps {
  router: Router;
  serving: ServingBackends;
  subscriptions: ResourceSubscriptions;
  /** With the optimizer on, the tool list is find_tool and call_tool (runtime/optimizer/). */
  optimizer: ToolOptimizer;
  validator: jsonSchemaValidator;
  /** Sessions shared by replicas: what the client changes is told to the store (none with the memory store). */
  shared?: SharedSessionState;
  /** What each caller may see and use (`authorization`). */
  access: AccessControl;
  /** Backends still in their first connect: a list waits for them (bounded). */
  firstConnects: FirstConnects;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export const GATEWAY_CAPABILITIES = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  logging: {},
  completions: {},
};

export function createSessionServer(deps: SessionServerDeps, session: ClientSession): Server {
  const server = new Server({ name: GATEWAY_NAME, version: GATEWAY_VERSION }, { capabilities: GATEWAY_CAPABILITIES, jsonSchemaValidator: deps.validator });
  // The SDK's own setLevel handler only records the level; ours also tells the backends.
  server.removeRequestHandler('logging/setLevel');
  server.oninitialized = () => {
    const lists = deps.access.visible(deps.serving.routes, callerOf(session));
    session.initialized = true;
    session.capabilitySnapshot = {
      tools: toolsFor(deps, deps.serving.routes, callerOf(session)).length,
      resources: lists.resources.length,
      prompts: lists.prompts.length,
    };
    deps.shared?.initialized(session);
  };
  server.fallbackRequestHandler = async (request, extra) => {
    const signal = session.begin(request.id, extra.signal);
    try {
      return await listAfterFirstConnects(deps.firstConnects, request.method, () => handle(deps, session, request, { ...extra, signal }));
    } catch (err) {
      throw toJsonRpcError(signal.aborted ? new RequestCancelledError(abortReasonText(signal.reason)) : err);
    } finally {
      session.end(request.id, signal);
      session.touch();
    }
  };
  server.fallbackNotificationHandler = async (notification) => {
    // The client's roots changed: every backend may care.
    if (notification.method === 'notifications/roots/list_changed') {
      await Promise.all(deps.serving.servingNames().map(async (name) => deps.serving.get(name)?.notify(notification.method)));
    }
  };
  return server;
}

async function handle(deps: SessionServerDeps, session: ClientSession, request: JSONRPCRequest, extra: Extra): Promise<JsonObject> {
  const params = (request.params ?? {}) as JsonObject;
  const routes = deps.serving.routes;
  switch (request.method) {
    // Lists are what this caller may see (everything when authorization is off), served with
    // their JSON computed once per route table and role set (see cachedListResult).
    // The session's capability snapshot records how much it was last shown.
    case 'tools/list': {
      const tools = toolsFor(deps, routes, callerOf(session));
      session.capabilitySnapshot.tools = tools.length;
      deps.shared?.snapshot(session);
      return cachedListResult('tools', tools);
    }
    case 'prompts/list': {
      const { prompts } = deps.access.visible(routes, callerOf(session));
      session.capabilitySnapshot.prompts = prompts.length;
      deps.shared?.snapshot(session);
      return cachedListResult('prompts', prompts);
    }
    case 'resources/list': {
      const { resources } = deps.access.visible(routes, callerOf(session));
      session.capabilitySnapshot.resources = resources.length;
      deps.shared?.snapshot(session);
      return cachedListResult('resources', resources);
    }
    case 'resources/templates/list':
      return cachedListResult('resourceTemplates', deps.access.visible(deps.serving.routes, callerOf(session)).resourceTemplates);
    case 'tools/call':
      if (deps.optimizer.handles(params.name)) {
        const caller = callerOf(session, request, extra);
        return deps.optimizer.call(caller, params, forwardOptions(extra), toolVisibility(deps, deps.serving.routes, caller));
      }
      return deps.router.callTool(callerOf(session, request, extra), params, forwardOptions(extra));
    case 'resources/read':
      return deps.router.readResource(callerOf(session, request, extra), params, forwardOptions(extra));
    case 'prompts/get':
      return deps.router.getPrompt(callerOf(session, request, extra), params, forwardOptions(extra));
    case 'completion/complete':
      return deps.router.complete(callerOf(session, request, extra), params, forwardOptions(extra));
    case 'resources/subscribe':
      if (deps.shared) {
        // Kept with the session; the replica holding its GET stream subscribes the backend.
        const uri = mayRead(deps, session, params.uri);
        if (!deps.router.resourceRoute(uri)) throw new ResourceNotFoundError(uri);
        await deps.shared.subscribe(session, uri);
      } else {
        await deps.subscriptions.subscribe(session.id, mayRead(deps, session, params.uri));
      }
      return {};
    case 'resources/unsubscribe':
      if (deps.shared) await deps.shared.unsubscribe(session, String(params.uri));
      else await deps.subscriptions.unsubscribe(session.id, String(params.uri));
      return {};
    case 'logging/setLevel':
      if (!LOGGING_LEVELS.includes(params.level as LoggingLevel)) {
        throw new BadRequestError(`Invalid params: level must be one of ${LOGGING_LEVELS.join(', ')} (got ${JSON.stringify(params.level)})`);
      }
      return setLevel(deps, session, params.level as LoggingLevel);
    default:
      throw new McpError(RpcCode.MethodNotFound, `Method not found: ${request.method}`);
  }
}

const LOGGING_LEVELS = LoggingLevelSchema.options;

/** Who the session's requests are made for; with a request, also how to reach its client back. */
function callerOf(session: ClientSession, request?: JSONRPCRequest, extra?: Extra): CallerContext {
  const { userId, roles } = session.identity;
  return {
    sessionId: session.id,
    transport: session.transportType,
    clientIp: session.clientIp,
    userId,
    roles,
    requestId: request?.id,
    // Tied to this request, so on streamable HTTP it travels on the same response stream.
    sendRequest:
      extra && ((req, signal, onprogress) => extra.sendRequest(req as ServerRequest, PASSTHROUGH, { signal, ...(onprogress ? { onprogress } : {}) })),
  };
}

/** A subscription needs what a read needs: a resource this caller may read is as unknown as one nobody has. */
/** The tool list this caller is shown: what it may see, or with the optimizer on the meta-tools and the kept tools it may see. */
function toolsFor(deps: SessionServerDeps, routes: RouteTable, caller: CallerContext): Tool[] {
  if (!deps.optimizer.enabled) return deps.access.visible(routes, caller).tools;
  return deps.optimizer.toolsList(routes, toolVisibility(deps, routes, caller));
}

const visibilityOfList = new WeakMap<readonly Tool[], ToolVisibility>();

/** What this caller may see, as the optimizer asks it (find_tool never names a tool the caller may not use); undefined: everything. */
function toolVisibility(deps: SessionServerDeps, routes: RouteTable, caller: CallerContext): ToolVisibility | undefined {
  const { tools } = deps.access.visible(routes, caller);
  if (tools === routes.lists.tools) return undefined;
  let visible = visibilityOfList.get(tools);
  if (!visible) {
    const names = new Set(tools.map((t) => t.name));
    visibilityOfList.set(tools, (visible = (name) => names.has(name)));
  }
  return visible;
}

function mayRead(deps: SessionServerDeps, session: ClientSession, uri: unknown): string {
  const text = String(uri);
  const route = deps.router.resourceRoute(text);
  if (route && !deps.access.check(callerOf(session), 'resource', text, route.backend).allowed) throw new ResourceNotFoundError(text);
  return text;
}

function forwardOptions(extra: Extra): ForwardOptions {
  const token = extra._meta?.progressToken;
  if (token === undefined) return { signal: extra.signal };
  return {
    signal: extra.signal,
    onprogress: (p) => {
      void extra.sendNotification({ method: 'notifications/progress', params: { ...p, progressToken: token } }).catch(() => undefined);
    },
  };
}

/** Records the session's level and asks every backend that logs to use it (the last setter wins at a shared backend). */
async function setLevel(deps: SessionServerDeps, session: ClientSession, level: LoggingLevel): Promise<JsonObject> {
  session.logLevel = level;
  deps.shared?.logLevel(session, level);
  await Promise.all(
    deps.serving.servingNames().map(async (name) => {
      if (!deps.serving.get(name)?.serverCapabilities?.logging) return;
      await deps.router.toBackend(name, 'logging/setLevel', { level }).catch(() => undefined);
    }),
  );
  return {};
}
