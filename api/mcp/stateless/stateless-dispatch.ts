/**
 * Where a 2026-07-28 request goes once its route has made its exchange: a
 * first-round `tools/call` from a client the SDK has already checked, to
 * the gateway's own framing (./direct-calls.ts); everything else to the
 * SDK's Server, through its transport (./stateless-server.ts). Both end in
 * the same handler (./modern-handler.ts).
 */
import type { JSONRPCRequest, MessageClassification } from '@modelcontextprotocol/server';
import type { DirectCalls } from './direct-calls.js';
import type { Exchange } from './exchange.js';
import type { ExchangeTransport, RequestOrigin } from './exchange-transport.js';

export class StatelessDispatch {
  constructor(
    private readonly direct: DirectCalls,
    private readonly server: ExchangeTransport,
  ) {}

  dispatch(exchange: Exchange, request: JSONRPCRequest, classification: MessageClassification, origin: RequestOrigin): void {
    if (this.direct.takes(request)) this.direct.serve(exchange, request, origin);
    else this.server.dispatch(exchange, request, classification, origin);
  }
}
