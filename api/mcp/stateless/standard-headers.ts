/**
 * What 2026-07-28 puts in the headers of a request, checked against its
 * body before anything serves it (streamable HTTP, "Server Validation"):
 * `MCP-Protocol-Version` and `Mcp-Method` are required; `Mcp-Name` mirrors
 * `params.name` / `params.uri` / `params.taskId`; and each tool argument the
 * tool's schema marks with `x-mcp-header` is mirrored in `Mcp-Param-{Name}`.
 * Values that are not plain ASCII travel as `=?base64?…?=`. A disagreement
 * is -32020 (HeaderMismatch) with HTTP 400. (The SDK's own entry checks the
 * same; its check is not exported, so the gateway's routes do it here.)
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { JSONRPCRequest } from '@modelcontextprotocol/server';
import { ProtocolRefusedError } from '../../../schemas/errors.js';
import { RpcCode } from '../../../schemas/json-rpc-codes.js';
import { NAME_SOURCE, SENTINEL_PREFIX, SENTINEL_SUFFIX } from '../../../runtime/transports/mcp-request-headers.js';

const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A header value as its sender meant it: the sentinel's UTF-8 payload, or the value itself; undefined for a broken sentinel. */
export function decodeHeaderValue(raw: string): string | undefined {
  const value = raw.replace(/^[ \t]+|[ \t]+$/g, '');
  if (!(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX))) return value;
  const b64 = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length);
  if (!CANONICAL_BASE64.test(b64)) return undefined;
  try {
    return utf8.decode(Buffer.from(b64, 'base64'));
  } catch {
    return undefined;
  }
}

/** An `x-mcp-header` declaration: the header's name part and where its value sits in the arguments. */
interface ParamHeader {
  name: string;
  path: readonly string[];
}

const declarationsOf = new WeakMap<object, readonly ParamHeader[]>();

/** The `x-mcp-header` declarations of a tool's input schema (reachable through `properties` only), cached per schema. */
export function paramHeaders(inputSchema: unknown): readonly ParamHeader[] {
  if (typeof inputSchema !== 'object' || inputSchema === null) return [];
  let found = declarationsOf.get(inputSchema);
  if (!found) {
    const list: ParamHeader[] = [];
    const walk = (schema: unknown, path: string[]) => {
      const properties = (schema as { properties?: unknown } | null)?.properties;
      if (typeof properties !== 'object' || properties === null) return;
      for (const [key, sub] of Object.entries(properties as Record<string, unknown>)) {
        const header = (sub as Record<string, unknown> | null)?.['x-mcp-header'];
        if (typeof header === 'string' && header) list.push({ name: header, path: [...path, key] });
        walk(sub, [...path, key]);
      }
    };
    walk(inputSchema, []);
    declarationsOf.set(inputSchema, (found = list));
  }
  return found;
}

/** A primitive argument as the spec writes it in a header (strings as they are, integers in decimal, booleans lowercase). */
function headerText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/**
 * Throws the -32020 refusal when the headers disagree with the request;
 * `inputSchemaOf` finds a tool's schema (for its `x-mcp-header` arguments).
 */
export function checkStandardHeaders(headers: IncomingHttpHeaders, request: JSONRPCRequest, inputSchemaOf: (tool: string) => unknown): void {
  const refuse = (message: string, mismatch: Record<string, unknown>): never => {
    throw new ProtocolRefusedError(RpcCode.HeaderMismatch, `Bad Request: ${message}`, { mismatch }, request.id, 400);
  };
  if (header(headers, 'mcp-protocol-version') === undefined) refuse('the required MCP-Protocol-Version header is absent', { header: 'MCP-Protocol-Version' });
  if (header(headers, 'mcp-method') === undefined)
    refuse(`the body names method ${request.method} but the required Mcp-Method header is absent`, { header: 'Mcp-Method' });
  const field = Object.hasOwn(NAME_SOURCE, request.method) ? NAME_SOURCE[request.method] : undefined;
  if (field === undefined) return;
  const params = (request.params ?? {}) as Record<string, unknown>;
  const body = typeof params[field] === 'string' ? (params[field] as string) : undefined;
  const raw = header(headers, 'mcp-name');
  if (raw === undefined) {
    if (body !== undefined) refuse(`the body carries params.${field}="${body}" but the required Mcp-Name header is absent`, { header: 'Mcp-Name' });
    return;
  }
  const named = decodeHeaderValue(raw);
  if (named === undefined) refuse('the Mcp-Name header carries an invalid Base64 sentinel value', { header: 'Mcp-Name' });
  if (body !== undefined && named !== body)
    refuse(`the body carries params.${field}="${body}" but the Mcp-Name header names "${named}"`, { header: 'Mcp-Name' });
  if (request.method === 'tools/call' && body !== undefined) checkParamHeaders(headers, params.arguments, paramHeaders(inputSchemaOf(body)), refuse);
}

function checkParamHeaders(
  headers: IncomingHttpHeaders,
  args: unknown,
  declared: readonly ParamHeader[],
  refuse: (message: string, mismatch: Record<string, unknown>) => never,
): void {
  for (const { name, path } of declared) {
    let value: unknown = args;
    for (const key of path) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
    const expected = value === null || value === undefined ? undefined : headerText(value);
    const raw = header(headers, `mcp-param-${name.toLowerCase()}`);
    if (raw === undefined) {
      if (expected !== undefined)
        refuse(`the argument ${path.join('.')} is not mirrored in the required Mcp-Param-${name} header`, { header: `Mcp-Param-${name}` });
      continue;
    }
    const sent = decodeHeaderValue(raw);
    if (sent === undefined || sent !== expected) {
      refuse(`the Mcp-Param-${name} header does not match the argument ${path.join('.')}`, { header: `Mcp-Param-${name}` });
    }
  }
}
