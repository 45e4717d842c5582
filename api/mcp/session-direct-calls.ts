/**
 * The gateway frames a 2025-11-25 session's plain `tools/call` itself, in
 * front of the session's SDK Server; everything else (initialize, ping,
 * lists, every other method, notifications, answers to the gateway's own
 * requests) still goes to the SDK's Server, which stays the judge of what
 * is malformed.
 *
 * Why: a tool call is what clients send at rate, and on the v2 SDK the
 * Server's dispatch costs it more than the 1.x SDK's did: per request two
 * zod type guards fail and build errors before the request one passes, the
 * request is checked against its era, its wire-only material is lifted, an
 * AbortController and its map entry and a handler context are made
 * (docs/performance.md, "The gateway frames a 2025-11-25 tool call"). The
 * issue that brought the v2 SDK asked for its framing unless the bench
 * shows it costs more; for this method it does. The 2026-07-28 tool call
 * is framed the same way (./stateless/direct-calls.ts).
 *
 * Taken here: a request of an initialized session, method `tools/call`,
 * params an object without `task` (a task-augmented call), without the
 * 2026-07-28 retry material (`inputResponses`, `requestState`) and without
 * 2026-07-28 envelope keys in `_meta` (all of which the SDK lifts or
 * treats apart). What the SDK's Server would do for it is done here, and
 * no more:
 * - the handler starts a microtask later, as the SDK's does;
 * - `notifications/cancelled` naming it, or the transport closing, aborts
 *   its signal, and an aborted request gets no answer;
 * - requests and notifications it causes travel as related to it (on its
 *   own response stream), through the Server's public `request()` and
 *   `notification()`;
 * - the answer is `{result, jsonrpc, id}` with the result as the handler
 *   gave it (the 2025-11-25 encoding leaves a tool result alone), or the
 *   thrown error's code (renumbered as the SDK does), message and data.
 * test/unit/api/mcp/session-direct-calls.test.ts holds both framings to the
 * same answers, byte for byte.
 */
import { SdkError, SdkErrorCode, type JSONRPCMessage, type JSONRPCRequest, type RequestId, type Server, type Transport } from '@modelcontextprotocol/server';
import type { JsonObject } from '../../runtime/routing/caller.js';
import { PASSTHROUGH_RESULT } from '../../runtime/transports/passthrough-schema.js';
import { sdkErrorBody } from '../error-mapping.js';
import { ENVELOPE_META_KEYS } from './gateway-capabilities.js';
import type { RequestFrame, ServeRequest } from './request-frame.js';

/** Params that make a tool call something the SDK treats apart (a task, a later round). */
const SET_APART = ['task', 'inputResponses', 'requestState'] as const;

type Plain = Record<string, unknown>;
const isPlain = (v: unknown): v is Plain => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Puts the gateway's framing of tool calls in front of the SDK Server
 * already connected to `transport`: its message and close handlers are
 * chained, as the SDK chains the ones it found at connect.
 */
export function frameToolCalls(transport: Transport, server: Server, serve: ServeRequest, initialized: () => boolean): void {
  const calls = new SessionDirectCalls(transport, server, serve, initialized);
  const sdkMessage = transport.onmessage;
  const sdkClose = transport.onclose;
  transport.onmessage = (message, extra) => {
    if (calls.takes(message)) return calls.serve(message);
    calls.noteCancellation(message);
    sdkMessage?.(message, extra);
  };
  transport.onclose = () => {
    calls.closed();
    sdkClose?.();
  };
}

export class SessionDirectCalls {
  /** Requests framed here and not answered yet, each with what cancels it. */
  private readonly running = new Map<RequestId, AbortController>();

  constructor(
    private readonly transport: Transport,
    private readonly server: Server,
    private readonly handle: ServeRequest,
    private readonly initialized: () => boolean,
  ) {}

  takes(message: JSONRPCMessage): message is JSONRPCRequest {
    if (!('method' in message) || message.method !== 'tools/call' || !('id' in message) || !this.initialized()) return false;
    const params: unknown = message.params;
    if (!isPlain(params) || SET_APART.some((key) => key in params)) return false;
    const meta = params._meta;
    return meta === undefined || (isPlain(meta) && !ENVELOPE_META_KEYS.some((key) => key in meta));
  }

  serve(request: JSONRPCRequest): void {
    const id = request.id;
    const controller = new AbortController();
    this.running.set(id, controller);
    const token = ((request.params as Plain)._meta as { progressToken?: string | number } | undefined)?.progressToken;
    const frame: RequestFrame = {
      signal: controller.signal,
      ...(token !== undefined && { progressToken: token }),
      send: (r, options) => this.server.request(r, PASSTHROUGH_RESULT, { ...options, relatedRequestId: id }) as Promise<JsonObject>,
      notify: (n) => this.server.notification(n as Parameters<Server['notification']>[0], { relatedRequestId: id }),
    };
    Promise.resolve()
      .then(() => this.handle(request, frame))
      .then(
        (result) => (controller.signal.aborted ? undefined : this.transport.send({ result, jsonrpc: '2.0', id } as JSONRPCMessage)),
        (err: unknown) => (controller.signal.aborted ? undefined : this.transport.send({ jsonrpc: '2.0', id, error: sdkErrorBody(err) } as JSONRPCMessage)),
      )
      // An answer that cannot be written (the session already gone) ends here, as the SDK's Server drops a failed send.
      .catch(() => undefined)
      .finally(() => {
        if (this.running.get(id) === controller) this.running.delete(id);
      });
  }

  /** The client cancelled a request: if it is one of these, its signal aborts with the client's reason (as the SDK's `_oncancel`). */
  noteCancellation(message: JSONRPCMessage): void {
    if (!('method' in message) || message.method !== 'notifications/cancelled' || 'id' in message) return;
    const params = message.params as { requestId?: RequestId; reason?: unknown } | undefined;
    if (params?.requestId !== undefined) this.running.get(params.requestId)?.abort(params.reason);
  }

  /** The transport closed: every request still running is aborted, as the SDK's Server aborts its own. */
  closed(): void {
    const error = new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed');
    const running = [...this.running.values()];
    this.running.clear();
    for (const controller of running) controller.abort(error);
  }
}
