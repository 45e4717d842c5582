/**
 * Which revision a POST to /mcp speaks, decided once per request by the
 * SDK's own classifier (the same code its handlers route with): a request
 * carrying the 2026-07-28 `_meta` envelope is served statelessly; anything
 * else (an initialize, a session's traffic, a batch, a posted response) is
 * 2025-11-25 session traffic, and a POST naming a session is that at once. A
 * well-formed 2026-07-28 request is recognised before the classifier, which
 * could only agree (./well-formed-modern-request.ts). The classifier also checks what 2026-07-28
 * puts in headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` against
 * the body) and the envelope itself; its refusals are thrown as typed errors.
 */
import type { FastifyRequest } from 'fastify';
import { classifyInboundRequest, type JSONRPCRequest, type MessageClassification } from '@modelcontextprotocol/server';
import { ProtocolRefusedError } from '../../schemas/errors.js';
import { MODERN_CLASSIFICATION, wellFormedModernRequest } from './well-formed-modern-request.js';

export type RevisionRoute =
  | { kind: 'session' }
  | { kind: 'stateless'; request: JSONRPCRequest; classification: MessageClassification }
  /** A 2026-07-28 notification: that revision defines none over HTTP; it is accepted and dropped. */
  | { kind: 'stateless-notification' };

const SESSION: RevisionRoute = { kind: 'session' };

export function routeByRevision(req: FastifyRequest): RevisionRoute {
  const headers = req.headers;
  // A session's own traffic (2025-11-25 only has sessions): its transport checks it, and answers a malformed
  // message naming what is wrong with it. The hot path of a session costs no classification.
  if (headers['mcp-session-id'] !== undefined) return SESSION;
  // The common 2026-07-28 request, recognised without the classifier's cost (./well-formed-modern-request.ts).
  const modern = wellFormedModernRequest(req.body, headers);
  if (modern) return { kind: 'stateless', request: modern, classification: MODERN_CLASSIFICATION };
  const outcome = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: header(headers['mcp-protocol-version']),
    mcpMethodHeader: header(headers['mcp-method']),
    mcpNameHeader: header(headers['mcp-name']),
    body: req.body,
  });
  switch (outcome.kind) {
    case 'legacy':
      return SESSION;
    case 'modern':
      return outcome.messageKind === 'request'
        ? { kind: 'stateless', request: outcome.message, classification: outcome.classification }
        : { kind: 'stateless-notification' };
    case 'reject': {
      const id = (req.body as { id?: unknown } | undefined)?.id;
      const requestId = typeof id === 'string' || typeof id === 'number' ? id : null;
      throw new ProtocolRefusedError(outcome.code, outcome.message, outcome.data, requestId, outcome.httpStatus);
    }
  }
}

const header = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);
