/**
 * The request metadata headers of MCP 2026-07-28 over streamable HTTP
 * (basic/transports/streamable-http, "Request Metadata"): what a client
 * mirrors from a request's body into its POST's headers, so intermediaries
 * can route without parsing the body.
 *
 * - `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` from the body (only on a
 *   request carrying the 2026-07-28 `_meta` envelope; a 2025 request keeps
 *   its connection-level headers);
 * - `Mcp-Param-{Name}` from a `tools/call`'s arguments, for the parameters
 *   its tool's `inputSchema` marks with `x-mcp-header`;
 * - values that are not plain ASCII-safe field values travel as
 *   `=?base64?{base64 of the UTF-8}?=`.
 *
 * The SDK's client does the same inside its fetch transport and its
 * `callTool()`, but exports none of it; the gateway forwards with its own
 * Node transport and generic requests, so the rules live here once.
 */

const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';
/** How a header value that is not plain ASCII is carried: `=?base64?…?=` (both sides of the gateway read and write it). */
export const SENTINEL_PREFIX = '=?base64?';
export const SENTINEL_SUFFIX = '?=';
const PARAM_HEADER_PREFIX = 'Mcp-Param-';

/** Which body field `Mcp-Name` mirrors, per method (the front door checks what this side writes). */
export const NAME_SOURCE: Readonly<Record<string, 'name' | 'uri' | 'taskId'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** Headers a caller's per-request headers never replace: the transport owns them. */
export const RESERVED_REQUEST_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'dpop',
  'content-type',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
  'mcp-session-id',
]);

/** RFC 9110 field value: visible ASCII, space and interior tab, no leading or trailing whitespace. */
function isPlainFieldValue(s: string): boolean {
  if (s.length === 0 || s !== s.trim()) return false;
  if (s.startsWith(SENTINEL_PREFIX) && s.endsWith(SENTINEL_SUFFIX)) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c !== 0x09 && (c < 0x20 || c > 0x7e)) return false;
  }
  return true;
}

/** A header value as the revision's Value Encoding says: as is when plain ASCII-safe, else the Base64 sentinel. */
export function encodeHeaderValue(value: string): string {
  return isPlainFieldValue(value) ? value : `${SENTINEL_PREFIX}${Buffer.from(value, 'utf8').toString('base64')}${SENTINEL_SUFFIX}`;
}

/** The modern revision a request claims in its `_meta` envelope, if any. */
export function envelopeVersion(message: unknown): string | undefined {
  const m = message as { method?: unknown; id?: unknown; params?: { _meta?: Record<string, unknown> } };
  if (typeof m?.method !== 'string' || m.id === undefined) return undefined;
  const version = m.params?._meta?.[PROTOCOL_VERSION_META_KEY];
  return typeof version === 'string' ? version : undefined;
}

/**
 * The headers a 2026-07-28 request carries from its body, or undefined for
 * anything else (a 2025 request, a notification, a response).
 */
export function bodyDerivedHeaders(message: unknown): Record<string, string> | undefined {
  const version = envelopeVersion(message);
  if (version === undefined) return undefined;
  const { method, params } = message as { method: string; params?: Record<string, unknown> };
  const headers: Record<string, string> = { 'mcp-protocol-version': version, 'mcp-method': method };
  const field = Object.hasOwn(NAME_SOURCE, method) ? NAME_SOURCE[method] : undefined;
  const name = field ? params?.[field] : undefined;
  if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name);
  return headers;
}

/** One parameter a tool mirrors into a header: where it is in the arguments, and the header's `{Name}`. */
export interface HeaderParam {
  path: readonly string[];
  name: string;
}

export type HeaderParamScan = { valid: true; params: readonly HeaderParam[] } | { valid: false; reason: string };

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_TYPES = new Set(['string', 'integer', 'boolean']);
/** Keywords an `x-mcp-header` must not be reached through: only a chain of `properties` keys is static. */
const NOT_STATIC = [
  'items',
  'prefixItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'patternProperties',
  'dependentSchemas',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
];
const MAP_VALUED = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);

/**
 * The `x-mcp-header` parameters of a tool's `inputSchema`, or why the tool
 * definition is invalid (the revision's constraints: a non-empty RFC 9110
 * token, unique regardless of case, on a string, integer or boolean property
 * reached only through `properties`).
 */
export function scanHeaderParams(inputSchema: unknown): HeaderParamScan {
  const params: HeaderParam[] = [];
  const seen = new Set<string>();
  const visit = (node: unknown, path: readonly string[], reachable: boolean): string | undefined => {
    if (node === null || typeof node !== 'object') return undefined;
    const schema = node as Record<string, unknown>;
    const where = path.length === 0 ? '<root>' : path.join('.');
    if ('x-mcp-header' in schema) {
      const name = schema['x-mcp-header'];
      if (!reachable || path.length === 0) return `${where}: x-mcp-header only on a property reached through 'properties'`;
      if (typeof name !== 'string' || !TOKEN.test(name)) return `${where}: x-mcp-header ${JSON.stringify(name)} is not an HTTP token`;
      if (typeof schema.type !== 'string' || !HEADER_TYPES.has(schema.type)) return `${where}: x-mcp-header on a ${String(schema.type)} property`;
      if (seen.has(name.toLowerCase())) return `x-mcp-header '${name}' is declared twice`;
      seen.add(name.toLowerCase());
      params.push({ path, name });
    }
    const properties = schema.properties;
    if (properties !== null && typeof properties === 'object') {
      for (const [key, child] of Object.entries(properties)) {
        const fault = visit(child, [...path, key], reachable);
        if (fault) return fault;
      }
    }
    for (const keyword of NOT_STATIC) {
      const sub = schema[keyword];
      if (sub === undefined || sub === null) continue;
      const branches = Array.isArray(sub) ? sub : MAP_VALUED.has(keyword) && typeof sub === 'object' ? Object.values(sub) : [sub];
      for (const branch of branches) {
        const fault = visit(branch, [...path, `<${keyword}>`], false);
        if (fault) return fault;
      }
    }
    return undefined;
  };
  const fault = visit(inputSchema, [], true);
  return fault === undefined ? { valid: true, params } : { valid: false, reason: fault };
}

/** A primitive argument as header text (strings as is, safe integers and booleans in their plain form), or undefined. */
function primitiveText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number' && Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value))) return String(value);
  return undefined;
}

/** The `Mcp-Param-*` headers of one `tools/call`: a parameter that is absent or null has none. */
export function paramHeaders(params: readonly HeaderParam[], args: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const param of params) {
    let value: unknown = args;
    for (const key of param.path) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
    const text = value === undefined || value === null ? undefined : primitiveText(value);
    if (text !== undefined) headers[`${PARAM_HEADER_PREFIX}${param.name}`] = encodeHeaderValue(text);
  }
  return headers;
}
