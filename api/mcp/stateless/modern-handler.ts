/**
 * What the gateway does with one 2026-07-28 request once it is framed,
 * whoever framed it: the SDK's Server (./stateless-server.ts) or the
 * gateway's own framing of a first-round `tools/call` (./direct-calls.ts).
 * The caller is made from the route's authentication and the request's
 * envelope; `subscriptions/listen` opens a listen stream; every other
 * method goes to the method table both revisions share (../methods/), the
 * ones that may ask the client for input through the rounds
 * (runtime/rounds/). A thrown error is already a JSON-RPC error
 * (api/error-mapping.ts): the framer only encodes it.
 */
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, LOG_LEVEL_META_KEY } from '@modelcontextprotocol/server';
import type { CallerIdentity } from '../../../runtime/access/identity.js';
import { withIncomingCredential, type CallerContext, type ForwardOptions, type JsonObject, type PeerMessage } from '../../../runtime/routing/caller.js';
import { abortReasonText } from '../../../runtime/backends/backend-errors.js';
import { RequestCancelledError, RpcRefusal } from '../../../schemas/errors.js';
import { RpcCode } from '../../../schemas/json-rpc-codes.js';
import { toJsonRpcError } from '../../error-mapping.js';
import type { MethodTable } from '../methods/mcp-call.js';
import { MODERN_PROTOCOL_VERSION } from '../gateway-capabilities.js';
import { progressRelayFor } from '../progress-relay.js';
import type { Exchange } from './exchange.js';
import type { RequestOrigin } from './exchange-transport.js';
import type { ListenStreams } from './listen-streams.js';
import { withCacheHints } from './cache-hints.js';
import type { RecentClients } from './recent-clients.js';
import { MAY_ASK_FOR_INPUT } from '../../../runtime/rounds/input-requests.js';
import type { StatelessRounds } from '../../../runtime/rounds/stateless-rounds.js';

/** One framed 2026-07-28 request: its params without the wire-only material, which comes lifted out beside them. */
export interface ModernRequest {
  method: string;
  /** Params without the `_meta` envelope's keys, `inputResponses` and `requestState`. */
  params: JsonObject;
  /** The request's `_meta` envelope (protocol version, client capabilities and info, log level). */
  envelope: Readonly<Record<string, unknown>> | undefined;
  inputResponses?: Readonly<Record<string, unknown>>;
  requestState?: string;
  /** The HTTP exchange the answer goes to. */
  exchange: Exchange;
  origin: RequestOrigin;
  /** Sends a notification related to this request, on its own response stream. */
  notify(notification: PeerMessage): void;
}

export type ModernHandler = (request: ModernRequest) => Promise<JsonObject>;

export interface ModernHandlerDeps {
  methods: MethodTable;
  listens: ListenStreams;
  clients: RecentClients;
  /** Calls that need the client's input, across rounds (runtime/rounds/). */
  rounds: StatelessRounds;
  /** `server.cache_ttl_s` of the running config, in ms. */
  cacheTtlMs(): number;
  /** Whether what callers see depends on who they are. */
  personal(): boolean;
}

export function modernHandler(deps: ModernHandlerDeps): ModernHandler {
  const facts = () => ({ ttlMs: deps.cacheTtlMs(), personal: deps.personal() });
  return async (request) => {
    const { exchange, origin, params } = request;
    const caller = callerOf(request, origin.identity, origin.clientIp, exchange.clientId);
    deps.clients.record(caller);
    try {
      if (request.method === 'subscriptions/listen') {
        return await deps.listens.listen(params, caller, { id: exchange.clientId, signal: exchange.signal, notify: request.notify });
      }
      const handler = deps.methods.get(request.method);
      if (!handler) throw new RpcRefusal(RpcCode.MethodNotFound, `Method not found: ${request.method}`);
      const onprogress = progressRelayFor(progressTokenOf(params), request.notify);
      const result = MAY_ASK_FOR_INPUT.has(request.method)
        ? await deps.rounds.serve(
            {
              method: request.method,
              params,
              caller,
              capabilities: caller.clientCapabilities,
              inputResponses: request.inputResponses,
              requestState: request.requestState,
              exchange,
              onprogress,
            },
            (who, forward, withRound) => handler({ params: withRound, caller: who, forward }),
          )
        : await handler({ params, caller, forward: forwardOptions(exchange.signal, onprogress) });
      return withCacheHints(request.method, result, facts);
    } catch (err) {
      throw toJsonRpcError(exchange.closedEarly ? new RequestCancelledError(abortReasonText(exchange.signal.reason)) : err);
    }
  };
}

const progressTokenOf = (params: JsonObject): string | number | undefined => (params._meta as { progressToken?: string | number } | undefined)?.progressToken;

/** Who a stateless request is for: the route's caller, named by its envelope, with its own response stream. */
function callerOf(request: ModernRequest, identity: CallerIdentity, clientIp: string, clientId: string | number): CallerContext {
  const envelope = request.envelope;
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
    requestStream: { logLevel, notify: request.notify },
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

function forwardOptions(signal: AbortSignal, onprogress: ForwardOptions['onprogress']): ForwardOptions {
  return onprogress ? { signal, onprogress } : { signal };
}
