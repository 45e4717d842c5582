/**
 * A 2026-07-28 request on POST /mcp: no session is looked up or made. The
 * response is handed to an exchange that answers it (./exchange.ts), and the
 * request to the stateless server through its transport, with who sent it.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JSONRPCRequest, MessageClassification } from '@modelcontextprotocol/server';
import { ANONYMOUS } from '../../../runtime/access/identity.js';
import { GatewayError } from '../../../schemas/errors.js';
import { checkAccept } from '../post-checks.js';
import { refuseWhileDraining } from '../admission.js';
import type { McpContext } from '../mcp-context.js';
import { Exchange } from './exchange.js';
import { checkStandardHeaders } from './standard-headers.js';
import { MODERN_PROTOCOL_VERSION, SERVED_PROTOCOL_VERSIONS } from '../gateway-capabilities.js';
import { ProtocolRefusedError } from '../../../schemas/errors.js';
import { RpcCode } from '../../../schemas/json-rpc-codes.js';

export function serveStateless(
  ctx: McpContext,
  req: FastifyRequest,
  reply: FastifyReply,
  request: JSONRPCRequest,
  classification: MessageClassification,
): FastifyReply {
  const notAcceptable = checkAccept(req.raw);
  if (notAcceptable) throw new GatewayError('not_acceptable', notAcceptable.message);
  // A revision of the stateless kind that is not this one: the client is told which the gateway serves.
  if (classification.revision !== MODERN_PROTOCOL_VERSION) {
    const requested = classification.revision ?? 'unknown';
    const data = { supported: [...SERVED_PROTOCOL_VERSIONS], requested };
    throw new ProtocolRefusedError(RpcCode.UnsupportedProtocolVersion, `Unsupported protocol version: ${requested}`, data, request.id, 400);
  }
  checkStandardHeaders(req.headers, request, (tool) => ctx.serving.routes.tools.get(tool)?.tool.inputSchema);
  const listen = request.method === 'subscriptions/listen';
  // A draining replica opens no new long-lived stream: the client goes to another replica.
  if (listen) refuseWhileDraining(ctx);
  ctx.requests.track(reply.raw);
  reply.hijack();
  const exchange = new Exchange(reply.raw, request.id, listen);
  ctx.stateless.dispatch(exchange, request, classification, { identity: req.identity ?? ANONYMOUS, clientIp: req.ip });
  return reply;
}
