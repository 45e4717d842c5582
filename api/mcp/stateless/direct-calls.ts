/**
 * The one 2026-07-28 request the gateway frames itself: a first-round
 * `tools/call` from a client whose envelope the SDK has already accepted
 * (./known-envelopes.ts). Everything else goes to the SDK's Server
 * (./stateless-server.ts), which stays the judge of what is malformed.
 *
 * Why: a tool call is what agents send at rate, and the SDK's Server costs
 * it 10–20 % of the gateway's CPU (docs/performance.md, "The gateway frames
 * a tool call"): per request its dispatch runs zod type guards (two of
 * them fail and build errors), it lifts the envelope, checks it with its
 * schema, makes an AbortController and its map entry and a handler
 * context, and encodes the result through several copies. The issue that
 * brought 2026-07-28 asked for the SDK's framing unless the bench shows it
 * costs more; for this method it does.
 *
 * What the SDK's Server does for such a request is done here, and no more:
 * - the `_meta` envelope's keys and the retry material are lifted out of
 *   the params (only first rounds come here: no `inputResponses`, no
 *   `requestState`);
 * - the result gets `resultType: "complete"` unless it has one, and the
 *   gateway's `serverInfo` in its `_meta` unless it has that;
 * - a thrown error is answered with its code (renumbered as the revision
 *   does: api/error-mapping.ts), message and data, on the status the
 *   revision gives it;
 * - notifications of the request go on its own response stream.
 * test/unit/api/mcp/stateless/direct-calls.test.ts holds both framings to
 * the same answers, byte for byte.
 */
import { SERVER_INFO_META_KEY, type JSONRPCMessage, type JSONRPCRequest } from '@modelcontextprotocol/server';
import type { JsonObject } from '../../../runtime/routing/caller.js';
import { sdkErrorBody, statelessErrorStatus } from '../../error-mapping.js';
import { ENVELOPE_META_KEYS, GATEWAY_SERVER_INFO } from '../gateway-capabilities.js';
import type { Exchange } from './exchange.js';
import type { RequestOrigin } from './exchange-transport.js';
import type { KnownEnvelopes } from './known-envelopes.js';
import type { ModernHandler } from './modern-handler.js';

type Meta = Record<string, unknown>;

export class DirectCalls {
  constructor(
    private readonly handle: ModernHandler,
    private readonly envelopes: KnownEnvelopes,
  ) {}

  /** Whether this 2026-07-28 request is framed here (else the SDK's Server frames it). */
  takes(request: JSONRPCRequest): boolean {
    const params = request.params as Meta | undefined;
    if (request.method !== 'tools/call' || params === undefined || 'inputResponses' in params || 'requestState' in params) return false;
    const meta = params._meta;
    return typeof meta === 'object' && meta !== null && this.envelopes.known(meta as Meta);
  }

  serve(exchange: Exchange, request: JSONRPCRequest, origin: RequestOrigin): void {
    const { params, envelope } = lift(request.params as Meta);
    this.handle({ method: request.method, params: params as JsonObject, envelope, exchange, origin, notify: exchange.notifier() })
      .then(
        (result) => exchange.answer({ result: encodeResult(result), jsonrpc: '2.0', id: exchange.clientId } as JSONRPCMessage),
        (err: unknown) => {
          const error = sdkErrorBody(err);
          exchange.answer({ jsonrpc: '2.0', id: exchange.clientId, error } as JSONRPCMessage, statelessErrorStatus(error.code, false));
        },
      )
      // An answer that cannot be written (a response already gone) ends here, as the SDK's Server drops a failed send.
      .catch(() => undefined);
  }
}

/**
 * The params without the envelope's keys in `_meta` (a `_meta` left empty
 * goes), and those keys apart, as the SDK lifts them. One pass, each object
 * built once: copying and then deleting would turn the copy into a slow
 * dictionary, on every call.
 */
function lift(source: Meta): { params: Meta; envelope: Meta } {
  const params: Meta = {};
  // (`__proto__` as a key would set the copy's prototype: the body parser refuses it, and it is never copied here.)
  for (const key in source) if (key !== '_meta' && key !== '__proto__') params[key] = source[key];
  const meta = source._meta as Meta;
  const envelope: Meta = {};
  let rest: Meta | undefined;
  for (const key in meta) {
    if (key === '__proto__') continue;
    if (ENVELOPE_KEYS.has(key)) envelope[key] = meta[key];
    else (rest ??= {})[key] = meta[key];
  }
  if (rest) params._meta = rest;
  return { params, envelope };
}

const ENVELOPE_KEYS: ReadonlySet<string> = new Set(ENVELOPE_META_KEYS);

/**
 * The result as the SDK's Server encodes a `tools/call` result: `resultType`
 * "complete" unless it has one, and the gateway's `serverInfo` added to its
 * `_meta` unless there; one copy, in the SDK's key order.
 */
function encodeResult(result: JsonObject): JsonObject {
  const meta = result._meta;
  const stamp = meta === undefined || (typeof meta === 'object' && meta !== null && !Array.isArray(meta) && !(SERVER_INFO_META_KEY in meta));
  if (result.resultType !== undefined && !stamp) return result;
  return {
    ...result,
    resultType: result.resultType ?? 'complete',
    ...(stamp && { _meta: { ...(meta as Meta | undefined), [SERVER_INFO_META_KEY]: GATEWAY_SERVER_INFO } }),
  };
}
