/**
 * The server of 2026-07-28: one SDK Server, bound to that revision for its
 * whole life, serving every stateless request of every client through one
 * transport (./exchange-transport.ts). The SDK checks each request (its
 * method against the revision, its `_meta` envelope), answers
 * `server/discover`, and encodes every result the revision's way
 * (`resultType`, the server's identity, renumbered errors). Everything else
 * goes through one fallback handler to the method table both revisions
 * share (../methods/), plus `subscriptions/listen`; the caller is made from
 * the route's authentication and the request's envelope.
 */
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, LOG_LEVEL_META_KEY, Server, type ServerContext } from '@modelcontextprotocol/server';
import { PASSTHROUGH } from '../../../runtime/transports/passthrough-schema.js';
import { GATEWAY_NAME, GATEWAY_VERSION } from '../../../runtime/version.js';
import type { CallerIdentity } from '../../../runtime/access/identity.js';
import { withIncomingCredential, type CallerContext, type ForwardOptions, type JsonObject } from '../../../runtime/routing/caller.js';
import { abortReasonText } from '../../../runtime/backends/backend-errors.js';
import { RequestCancelledError, RpcRefusal } from '../../../schemas/errors.js';
import { RpcCode } from '../../../schemas/json-rpc-codes.js';
import { toJsonRpcError } from '../../error-mapping.js';
import type { MethodTable } from '../methods/mcp-call.js';
import { GATEWAY_CAPABILITIES, MODERN_PROTOCOL_VERSION, SERVED_PROTOCOL_VERSIONS } from '../gateway-capabilities.js';
import { progressRelay } from '../progress-relay.js';
import type { ExchangeTransport } from './exchange-transport.js';
import type { ListenStreams } from './listen-streams.js';
import { withCacheHints } from './cache-hints.js';
import type { RecentClients } from './recent-clients.js';
import { MAY_ASK_FOR_INPUT } from '../../../runtime/rounds/input-requests.js';
import type { StatelessRounds } from '../../../runtime/rounds/stateless-rounds.js';

export interface StatelessServerDeps {
  methods: MethodTable;
  listens: ListenStreams;
  clients: RecentClients;
  /** Calls that need the client's input, across rounds (runtime/rounds/). */
  rounds: StatelessRounds;
  /** `server.cache_ttl_s` of the running config, in ms. */
  cacheTtlMs(): number;
  /** Whether what callers see depends on who they are. */
  personal(): boolean;
  /** What `server/discover` says the gateway serves now (its own capabilities, and the tasks extension when some backend offers it). */
  capabilities(): Record<string, unknown>;
  /** Methods of the method table that 2026-07-28's era gate serves only when registered with a schema (the tasks extension's). */
  schemaGated: readonly string[];
}

/**
 * A Server that speaks 2026-07-28 from the start. The SDK binds an
 * instance's revision when a client initializes it, or when it is connected
 * to the SDK's own per-request transport; this instance is neither, so it
 * sets the revision it serves the one way a subclass can.
 */
class StatelessServer extends Server {
  constructor() {
    super({ name: GATEWAY_NAME, version: GATEWAY_VERSION }, { capabilities: GATEWAY_CAPABILITIES, supportedProtocolVersions: [...SERVED_PROTOCOL_VERSIONS] });
    this._negotiatedProtocolVersion = MODERN_PROTOCOL_VERSION;
  }
}

export async function createStatelessServer(deps: StatelessServerDeps, transport: ExchangeTransport): Promise<Server> {
  const server = new StatelessServer();
  // Both revisions, the capabilities every client gets, and how long a client may keep the answer.
  server.setRequestHandler('server/discover', () => ({
    supportedVersions: [...SERVED_PROTOCOL_VERSIONS],
    capabilities: deps.capabilities(),
    ttlMs: deps.cacheTtlMs(),
    cacheScope: 'public' as const,
  }));
  const serve = async (request: { method: string; params?: Record<string, unknown> }, ctx: ServerContext): Promise<JsonObject> => {
    const pending = transport.requestOf(ctx.mcpReq.id);
    // Only this server's transport calls it, with a request it registered.
    if (!pending) throw new RpcRefusal(RpcCode.InternalError, 'request without an exchange');
    const { exchange, origin } = pending;
    const caller = callerOf(ctx, origin.identity, origin.clientIp, exchange.clientId);
    deps.clients.record(caller);
    const params = (request.params ?? {}) as JsonObject;
    try {
      if (request.method === 'subscriptions/listen') {
        const notify = (n: Parameters<typeof ctx.mcpReq.notify>[0]) => void ctx.mcpReq.notify(n).catch(() => undefined);
        return await deps.listens.listen(params, caller, { id: exchange.clientId, signal: exchange.signal, notify });
      }
      const handler = deps.methods.get(request.method);
      if (!handler) throw new RpcRefusal(RpcCode.MethodNotFound, `Method not found: ${request.method}`);
      const result = MAY_ASK_FOR_INPUT.has(request.method)
        ? await deps.rounds.serve(
            {
              method: request.method,
              params,
              caller,
              capabilities: caller.clientCapabilities,
              inputResponses: ctx.mcpReq.inputResponses,
              requestState: ctx.mcpReq.requestState<string>(),
              exchange,
              onprogress: progressRelay(ctx),
            },
            (who, forward, withRound) => handler({ params: withRound, caller: who, forward }),
          )
        : await handler({ params, caller, forward: forwardOptions(ctx, exchange.signal) });
      return withCacheHints(request.method, result, { ttlMs: deps.cacheTtlMs(), personal: deps.personal() });
    } catch (err) {
      throw toJsonRpcError(exchange.closedEarly ? new RequestCancelledError(abortReasonText(exchange.signal.reason)) : err);
    }
  };
  server.fallbackRequestHandler = serve;
  // Params pass as they came (the method table checks what it reads).
  for (const method of deps.schemaGated) server.setRequestHandler(method, { params: PASSTHROUGH }, (params, ctx) => serve({ method, params }, ctx));
  await server.connect(transport);
  return server;
}

/** Who a stateless request is for: the route's caller, named by its envelope, with its own response stream. */
function callerOf(ctx: ServerContext, identity: CallerIdentity, clientIp: string, clientId: string | number): CallerContext {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const info = envelope?.[CLIENT_INFO_META_KEY] as { name?: unknown; version?: unknown } | undefined;
  const logLevel = envelope?.[LOG_LEVEL_META_KEY] as string | undefined;
  const caller: CallerContext = {
    sessionId: '',
    transport: 'streamable-http',
    clientIp,
    userId: identity.userId,
    roles: identity.roles,
    ...(identity.claims !== undefined ? { claims: identity.claims } : {}),
    requestId: clientId,
    protocolVersion: MODERN_PROTOCOL_VERSION,
    client: typeof info?.name === 'string' ? { name: info.name, ...(typeof info.version === 'string' ? { version: info.version } : {}) } : undefined,
    requestStream: { logLevel, notify: (n) => void ctx.mcpReq.notify(n).catch(() => undefined) },
    clientCapabilities: envelope?.[CLIENT_CAPABILITIES_META_KEY] as Record<string, unknown> | undefined,
    // A backend's request in the middle of a call that cannot answer input_required (a completion) has nowhere to go;
    // the calls that can are given their own way to ask (runtime/rounds/stateless-rounds.ts).
    sendRequest: (req) =>
      Promise.reject(
        new RpcRefusal(
          RpcCode.MethodNotFound,
          `${req.method} cannot be relayed: the calling client speaks ${MODERN_PROTOCOL_VERSION}, which has no requests to clients`,
        ),
      ),
  };
  return withIncomingCredential(caller, identity);
}

function forwardOptions(ctx: ServerContext, signal: AbortSignal): ForwardOptions {
  const onprogress = progressRelay(ctx);
  return onprogress ? { signal, onprogress } : { signal };
}
