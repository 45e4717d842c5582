/**
 * The server of 2026-07-28: one SDK Server, bound to that revision for its
 * whole life, serving the stateless requests of every client through one
 * transport (./exchange-transport.ts), except the first-round `tools/call`s
 * the gateway frames itself (./direct-calls.ts). The SDK checks each
 * request (its method against the revision, its `_meta` envelope), answers
 * `server/discover`, and encodes every result the revision's way
 * (`resultType`, the server's identity, renumbered errors). Everything else
 * goes through one fallback handler to what both framings share
 * (./modern-handler.ts). An envelope the SDK accepted here is remembered
 * (./known-envelopes.ts): the same client's next call may skip the SDK.
 */
import { Server, type ServerContext } from '@modelcontextprotocol/server';
import { PASSTHROUGH } from '../../../runtime/transports/passthrough-schema.js';
import { RpcRefusal } from '../../../schemas/errors.js';
import { RpcCode } from '../../../schemas/json-rpc-codes.js';
import type { JsonObject } from '../../../runtime/routing/caller.js';
import { GATEWAY_CAPABILITIES, GATEWAY_SERVER_INFO, MODERN_PROTOCOL_VERSION, SERVED_PROTOCOL_VERSIONS } from '../gateway-capabilities.js';
import type { ExchangeTransport } from './exchange-transport.js';
import type { ModernHandler } from './modern-handler.js';
import type { KnownEnvelopes } from './known-envelopes.js';

export interface StatelessServerDeps {
  /** What is done with a request once framed. */
  handle: ModernHandler;
  /** Envelopes this server's checks passed, for ./direct-calls.ts. */
  envelopes: KnownEnvelopes;
  /** `server.cache_ttl_s` of the running config, in ms. */
  cacheTtlMs(): number;
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
    super(GATEWAY_SERVER_INFO, { capabilities: GATEWAY_CAPABILITIES, supportedProtocolVersions: [...SERVED_PROTOCOL_VERSIONS] });
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
  const serve = (request: { method: string; params?: Record<string, unknown> }, ctx: ServerContext): Promise<JsonObject> => {
    const pending = transport.requestOf(ctx.mcpReq.id);
    // Only this server's transport calls it, with a request it registered.
    if (!pending) return Promise.reject(new RpcRefusal(RpcCode.InternalError, 'request without an exchange'));
    const envelope = ctx.mcpReq.envelope as Readonly<Record<string, unknown>> | undefined;
    // The SDK calls a handler only for a request whose envelope passed its check.
    if (envelope) deps.envelopes.remember(envelope);
    return deps.handle({
      method: request.method,
      params: (request.params ?? {}) as JsonObject,
      envelope,
      inputResponses: ctx.mcpReq.inputResponses,
      requestState: ctx.mcpReq.requestState<string>(),
      exchange: pending.exchange,
      origin: pending.origin,
      notify: (n) => void ctx.mcpReq.notify(n as Parameters<typeof ctx.mcpReq.notify>[0]).catch(() => undefined),
    });
  };
  server.fallbackRequestHandler = serve;
  // Params pass as they came (the method table checks what it reads).
  for (const method of deps.schemaGated) server.setRequestHandler(method, { params: PASSTHROUGH }, (params, ctx) => serve({ method, params }, ctx));
  await server.connect(transport);
  return server;
}
