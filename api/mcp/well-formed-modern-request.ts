/**
 * The one shape of POST that needs no classifier: a single, well-formed
 * JSON-RPC request carrying a 2026-07-28 envelope claim, with headers that
 * agree with it. For that shape the SDK's `classifyInboundRequest` can only
 * answer "modern request, revision 2026-07-28", yet it costs 11–15 µs of CPU
 * per request (three zod guards over the whole message, two of which fail
 * and build their issue lists, then the envelope schema), which a session's
 * request never pays; this check costs about 0.1 µs (docs/performance.md).
 *
 * So this check is a sufficient condition for that answer, and nothing more:
 * anything it is not sure of (a batch, a response, `initialize`, another
 * revision, an extra top-level key, an id or progress token of another type,
 * headers with surrounding whitespace or that disagree) returns undefined
 * and goes to the SDK's classifier, which keeps every rejection its own. What
 * is not looked into here (the members of the client's capabilities and
 * info beyond its name and version) the SDK's Server checks before any
 * handler runs, with the classifier's schema, and refuses with -32602 on
 * HTTP 400 (api/error-mapping.ts). test/unit/api/mcp pins this check to the
 * classifier's answers.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  type JSONRPCRequest,
  type MessageClassification,
} from '@modelcontextprotocol/server';
import type { IncomingHttpHeaders } from 'node:http';
import { MODERN_PROTOCOL_VERSION } from './gateway-capabilities.js';
import { isMcpLogLevel } from '../../schemas/mcp-log-levels.js';

export const MODERN_CLASSIFICATION: MessageClassification = Object.freeze({ era: 'modern', revision: MODERN_PROTOCOL_VERSION });

/** The top-level members a JSON-RPC request may have (the SDK's request schema is strict). */
const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
/** A `_meta` key the SDK's request schema types (2025-11-25's related task); its presence sends the request to the classifier. */
const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isRequestId = (value: unknown): boolean => typeof value === 'string' || Number.isSafeInteger(value);

/** The request, when `body` and `headers` are that shape; otherwise undefined (ask the classifier). */
export function wellFormedModernRequest(body: unknown, headers: IncomingHttpHeaders): JSONRPCRequest | undefined {
  if (!isPlainObject(body) || body.jsonrpc !== '2.0' || typeof body.method !== 'string' || body.method === 'initialize') return undefined;
  if (!isRequestId(body.id)) return undefined;
  for (const key in body) if (!REQUEST_KEYS.has(key)) return undefined;
  const params = body.params;
  if (!isPlainObject(params)) return undefined;
  const meta = params._meta;
  if (!isPlainObject(meta) || meta[PROTOCOL_VERSION_META_KEY] !== MODERN_PROTOCOL_VERSION || !isPlainObject(meta[CLIENT_CAPABILITIES_META_KEY]))
    return undefined;
  if (meta.progressToken !== undefined && !isRequestId(meta.progressToken)) return undefined;
  if (RELATED_TASK_META_KEY in meta) return undefined;
  const info = meta[CLIENT_INFO_META_KEY];
  if (info !== undefined && !(isPlainObject(info) && typeof info.name === 'string' && typeof info.version === 'string')) return undefined;
  const level = meta[LOG_LEVEL_META_KEY];
  if (level !== undefined && !isMcpLogLevel(level)) return undefined;
  const version = headers['mcp-protocol-version'];
  if (version !== undefined && version !== MODERN_PROTOCOL_VERSION) return undefined;
  const method = headers['mcp-method'];
  if (method !== undefined && method !== body.method) return undefined;
  return body as unknown as JSONRPCRequest;
}
