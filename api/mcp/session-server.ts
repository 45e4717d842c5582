/**
 * The SDK Server behind one 2025-11-25 client session (/mcp with
 * `Mcp-Session-Id`, or /sse). The SDK answers initialize and ping; every
 * other method goes through one fallback handler to the method table
 * (./methods/), with the session's own methods (resource subscriptions, the
 * log level) beside the shared ones. No per-request schema parsing, and
 * results pass through exactly as the backend produced them.
 *
 * What serving a request needs of whoever framed it (its signal, its
 * progress token, how to reach the client on its stream) is a
 * `RequestFrame` (./request-frame.ts): the SDK's handler context, or the
 * gateway's own framing of a tool call (./session-direct-calls.ts). Both
 * serve through the same `serve`.
 */
import {
  ProtocolError,
  Server,
  type jsonSchemaValidator,
  type JSONRPCRequest,
  type LoggingLevel,
  type ServerCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { Router } from '../../runtime/routing/router.js';
import type { ServingBackends } from '../../runtime/backends/serving-backends.js';
import type { CallerView } from '../../runtime/access/caller-view.js';
import { withIncomingCredential, type CallerContext, type ForwardOptions, type JsonObject } from '../../runtime/routing/caller.js';
import { toJsonRpcError } from '../error-mapping.js';
import { BadRequestError, RequestCancelledError, ResourceNotFoundError } from '../../schemas/errors.js';
import { RpcCode } from '../../schemas/json-rpc-codes.js';
import { MCP_LOG_LEVELS, isMcpLogLevel } from '../../schemas/mcp-log-levels.js';
import { abortReasonText } from '../../runtime/backends/backend-errors.js';
import type { ClientSession } from './client-session.js';
import { PASSTHROUGH_RESULT } from '../../runtime/transports/passthrough-schema.js';
import type { SessionChanges } from './session-changes.js';
import type { MethodTable } from './methods/mcp-call.js';
import { GATEWAY_SERVER_INFO, LEGACY_PROTOCOL_VERSIONS } from './gateway-capabilities.js';
import { progressRelayFor } from './progress-relay.js';
import type { RequestFrame, ServeRequest, SessionServer } from './request-frame.js';

export interface SessionServerDeps {
  /** The methods both revisions serve (./methods/shared-methods.ts). */
  methods: MethodTable;
  router: Router;
  serving: ServingBackends;
  /** What each caller may see and use. */
  view: CallerView;
  validator: jsonSchemaValidator;
  /** Where a session's changes go: this process, or the shared store (./session-changes.ts). */
  changes: SessionChanges;
  /** What a session is told it may use, when it starts (the gateway's own, and tasks when some backend offers them). */
  capabilities(): ServerCapabilities;
}

/** What a list call shows, by method: the session records how much it was last shown (GET /sessions). */
const LISTED: Record<string, 'tools' | 'prompts' | 'resources'> = { 'tools/list': 'tools', 'prompts/list': 'prompts', 'resources/list': 'resources' };

type SessionMethod = (session: ClientSession, params: JsonObject, caller: CallerContext) => Promise<JsonObject>;

export function createSessionServer(deps: SessionServerDeps, session: ClientSession): SessionServer {
  const server = new Server(GATEWAY_SERVER_INFO, {
    capabilities: deps.capabilities(),
    jsonSchemaValidator: deps.validator,
    supportedProtocolVersions: [...LEGACY_PROTOCOL_VERSIONS],
  });
  // The SDK's own setLevel handler only records the level; ours also tells the backends.
  server.removeRequestHandler('logging/setLevel');
  const own = sessionMethods(deps);
  server.oninitialized = () => {
    const caller = callerOf(session);
    const lists = deps.view.lists(caller);
    session.initialized = true;
    session.capabilitySnapshot = { tools: deps.view.tools(caller).length, resources: lists.resources.length, prompts: lists.prompts.length };
    deps.changes.initialized(session);
  };
  const serve: ServeRequest = async (request, frame) => {
    const signal = session.begin(request.id, frame.signal);
    try {
      const caller = callerOf(session, request, frame);
      const params = (request.params ?? {}) as JsonObject;
      const sessionMethod = own.get(request.method);
      if (sessionMethod) return await sessionMethod(session, params, caller);
      const handler = deps.methods.get(request.method);
      if (!handler) throw new ProtocolError(RpcCode.MethodNotFound, `Method not found: ${request.method}`);
      const result = await handler({ params, caller, forward: forwardOptions(frame, signal) });
      const listed = LISTED[request.method];
      if (listed) recordListed(deps.changes, session, listed, result);
      return result;
    } catch (err) {
      throw toJsonRpcError(signal.aborted ? new RequestCancelledError(abortReasonText(signal.reason)) : err);
    } finally {
      session.end(request.id, signal);
      session.touch();
    }
  };
  server.fallbackRequestHandler = (request, ctx) => serve(request, sdkFrame(ctx));
  server.fallbackNotificationHandler = async (notification) => {
    // The client's roots changed: every backend may care.
    if (notification.method === 'notifications/roots/list_changed') {
      await Promise.all(deps.serving.servingNames().map(async (name) => deps.serving.get(name)?.notify(notification.method)));
    }
  };
  return { server, serve };
}

/** The SDK's handler context as a request's frame. */
function sdkFrame(ctx: ServerContext): RequestFrame {
  const token = ctx.mcpReq._meta?.progressToken;
  return {
    signal: ctx.mcpReq.signal,
    ...(token !== undefined && { progressToken: token }),
    send: (request, options) => ctx.mcpReq.send(request, PASSTHROUGH_RESULT, options),
    notify: (notification) => ctx.mcpReq.notify(notification as Parameters<typeof ctx.mcpReq.notify>[0]),
  };
}

/** The methods only a session has: its resource subscriptions and its log level. */
function sessionMethods(deps: SessionServerDeps): ReadonlyMap<string, SessionMethod> {
  return new Map<string, SessionMethod>([
    [
      'resources/subscribe',
      async (session, params, caller) => {
        // A subscription needs what a read needs: a resource this caller may not read is as unknown as one nobody has.
        const uri = String(params.uri);
        const route = deps.router.resourceRoute(uri);
        if (!route || !deps.view.mayRead(caller, uri, route.backend)) throw new ResourceNotFoundError(uri);
        await deps.changes.subscribe(session, uri);
        return {};
      },
    ],
    [
      'resources/unsubscribe',
      async (session, params) => {
        await deps.changes.unsubscribe(session, String(params.uri));
        return {};
      },
    ],
    [
      'logging/setLevel',
      async (session, params) => {
        if (!isMcpLogLevel(params.level)) {
          throw new BadRequestError(`Invalid params: level must be one of ${MCP_LOG_LEVELS.join(', ')} (got ${JSON.stringify(params.level)})`);
        }
        return setLevel(deps, session, params.level);
      },
    ],
  ]);
}

function recordListed(changes: SessionChanges, session: ClientSession, kind: 'tools' | 'prompts' | 'resources', result: JsonObject): void {
  const list = result[kind];
  if (!Array.isArray(list)) return;
  session.capabilitySnapshot[kind] = list.length;
  changes.snapshot(session);
}

/** Who the session's requests are made for; with a request, also how to reach its client back. */
function callerOf(session: ClientSession, request?: JSONRPCRequest, frame?: RequestFrame): CallerContext {
  const { userId, roles, claims } = session.identity;
  const caller: CallerContext = {
    sessionId: session.id,
    transport: session.transportType,
    clientIp: session.clientIp,
    userId,
    roles,
    ...(claims !== undefined ? { claims } : {}),
    requestId: request?.id,
    protocolVersion: session.protocolVersion,
    client: session.client,
    clientCapabilities: session.capabilities,
    // Tied to this request, so on streamable HTTP it travels on the same response stream.
    sendRequest:
      frame &&
      ((req, signal, onprogress, timeoutMs) =>
        session.askDuringCall(() =>
          frame.send(req as { method: string; params?: JsonObject }, {
            signal,
            ...(onprogress ? { onprogress } : {}),
            ...(timeoutMs !== undefined ? { timeout: timeoutMs } : {}),
          }),
        )),
  };
  return withIncomingCredential(caller, session.identity);
}

function forwardOptions(frame: RequestFrame, signal: AbortSignal): ForwardOptions {
  const onprogress = progressRelayFor(frame.progressToken, (n) => void frame.notify(n).catch(() => undefined));
  return onprogress ? { signal, onprogress } : { signal };
}

/** Records the session's level and asks every backend that logs to use it (the last setter wins at a shared backend). */
async function setLevel(deps: SessionServerDeps, session: ClientSession, level: LoggingLevel): Promise<JsonObject> {
  session.logLevel = level;
  deps.changes.logLevel(session, level);
  await Promise.all(
    deps.serving.servingNames().map(async (name) => {
      if (!deps.serving.get(name)?.serverCapabilities?.logging) return;
      await deps.router.toBackend(name, 'logging/setLevel', { level }).catch(() => undefined);
    }),
  );
  return {};
}
