/**
 * A structural JSON-RPC 2.0 message check: what the SDK's zod
 * `JSONRPCMessageSchema` enforces on the envelope, at a fraction of the cost.
 * Transports on the proxy hot path use it instead of a zod parse per message.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/client';

export function isJsonRpcMessage(m: unknown): m is JSONRPCMessage {
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return false;
  const msg = m as Record<string, unknown>;
  if (msg.jsonrpc !== '2.0') return false;
  const id = msg.id;
  if (id !== undefined && typeof id !== 'string' && !(typeof id === 'number' && Number.isInteger(id))) return false;
  if (msg.method !== undefined) {
    if (typeof msg.method !== 'string') return false;
    const p = msg.params;
    return p === undefined || (typeof p === 'object' && p !== null && !Array.isArray(p));
  }
  if ('result' in msg) return id !== undefined && typeof msg.result === 'object' && msg.result !== null && !Array.isArray(msg.result);
  if ('error' in msg) {
    // An error response may lack an id (a parse error the sender could not attribute).
    const e = msg.error as Record<string, unknown> | null;
    return typeof e === 'object' && e !== null && typeof e.code === 'number' && Number.isInteger(e.code) && typeof e.message === 'string';
  }
  return false;
}

type Envelope = Record<string, unknown>;

/** Why a request would go unanswered: a top-level member the SDK does not know, or a malformed `params._meta`. */
export interface UnanswerableReason {
  problem: 'unknown_member' | 'invalid_meta';
  message: string;
}

/** The keys of a JSON-RPC request the SDK accepts (its request schema is strict: any other key makes it no request). */
const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const RELATED_TASK_KEY = 'io.modelcontextprotocol/related-task';

/**
 * Why the SDK would drop this otherwise well-formed request without an
 * answer, or undefined when it would not. The SDK's Protocol answers only
 * what its strict request schema accepts: a request with an unknown top-level
 * key, a `params._meta` that is not an object, a progress token that is
 * neither a string nor an integer, or a related-task entry without a string
 * `taskId` is neither request nor notification to it, and no answer ever
 * comes. Transports refuse such a request themselves, with the JSON-RPC code
 * and HTTP status api/error-mapping.ts gives the problem.
 */
export function unanswerableReason(m: Envelope): UnanswerableReason | undefined {
  if (m.method === undefined || m.id === undefined) return undefined;
  for (const key in m) {
    if (!REQUEST_KEYS.has(key)) return { problem: 'unknown_member', message: `Invalid Request: unknown member ${JSON.stringify(key)}` };
  }
  const meta = (m.params as Envelope | undefined)?._meta;
  if (meta === undefined) return undefined;
  const invalid = (message: string): UnanswerableReason => ({ problem: 'invalid_meta', message: `Invalid params: ${message}` });
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return invalid(`_meta must be an object (got ${JSON.stringify(meta)})`);
  const token = (meta as Envelope).progressToken;
  if (token !== undefined && typeof token !== 'string' && !Number.isInteger(token)) {
    return invalid(`_meta.progressToken must be a string or an integer (got ${JSON.stringify(token)})`);
  }
  const task = (meta as Envelope)[RELATED_TASK_KEY] as Envelope | undefined;
  if (task !== undefined && (typeof task !== 'object' || task === null || typeof task.taskId !== 'string')) {
    return invalid(`_meta["${RELATED_TASK_KEY}"] must be an object with a string taskId`);
  }
  return undefined;
}

/** A request (has a method and an id; a notification has no id). */
export const isRequestMessage = (m: Envelope): boolean => typeof m.method === 'string' && m.id !== undefined;

/** A response: a result or an error for an id. */
export const isResponseMessage = (m: Envelope): boolean => m.method === undefined && m.id !== undefined && ('result' in m || 'error' in m);

/** The media type of a Content-Type header, without parameters, lower-cased (`application/json; charset=utf-8` → `application/json`). */
export function mediaType(contentType: string | undefined): string {
  if (!contentType) return '';
  const semi = contentType.indexOf(';');
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

/** Parses one JSON-RPC message (or throws, as the SDK's zod parse would). */
export function toJsonRpcMessage(value: unknown): JSONRPCMessage {
  if (!isJsonRpcMessage(value)) throw new Error(`Invalid JSON-RPC message: ${JSON.stringify(value)?.slice(0, 200)}`);
  return value;
}

/**
 * A list result may carry the JSON of its list under this symbol (computed
 * only when a transport asks). JSON.stringify ignores symbol keys, so any
 * other transport serialises the object as usual. It is an enumerable own
 * property, so a copy made by spreading (`{ ...result, resultType }`, as the
 * SDK's 2026-07-28 result encoding does) keeps it.
 */
export const RESULT_JSON: unique symbol = Symbol.for('mcp-gateway.result-json');

interface CachedList {
  field: string;
  json: () => string;
}

const listJson = new WeakMap<object, string>();

/**
 * `{ [field]: list }` whose list JSON is computed once per list array and
 * then reused: list results (tools/list with a thousand tools) are the same
 * array until the registry changes, and serialising them is most of their
 * cost. Fields added to the result later (`resultType`, `ttlMs`, `_meta`) are
 * serialised as usual and joined to it. The list must not be mutated after
 * it is first served (registry snapshots never are).
 */
export function cachedListResult(field: string, list: readonly unknown[]): Record<string, unknown> {
  const cached: CachedList = { field, json: () => listResultJson(field, list) };
  return { [field]: list, [RESULT_JSON]: cached };
}

/** The JSON of `{ [field]: list }`, computed once per list array (the registry also compares lists by it). */
export function listResultJson(field: string, list: readonly unknown[]): string {
  let json = listJson.get(list);
  if (json === undefined) {
    json = JSON.stringify({ [field]: list });
    listJson.set(list, json);
  }
  return json;
}

/** Serialises a JSON-RPC message, splicing in a list result's cached JSON when it has one. */
export function serializeMessage(message: JSONRPCMessage): string {
  const result = (message as { result?: Record<PropertyKey, unknown> }).result;
  const cached = result?.[RESULT_JSON] as CachedList | undefined;
  if (cached === undefined || result?.[cached.field] === undefined) return JSON.stringify(message);
  let body = cached.json();
  const others: Record<string, unknown> = {};
  for (const key of Object.keys(result)) if (key !== cached.field) others[key] = result[key];
  const extra = JSON.stringify(others);
  if (extra !== '{}') body = `${body.slice(0, -1)},${extra.slice(1)}`;
  const { result: _omit, ...rest } = message as Record<string, unknown>;
  const tail = JSON.stringify(rest);
  return tail === '{}' ? `{"result":${body}}` : `{"result":${body},${tail.slice(1)}`;
}
