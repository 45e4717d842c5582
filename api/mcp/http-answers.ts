/** Plain HTTP answers on the MCP endpoints' raw responses (the transports own them once a route hands a request over). */
import type { ServerResponse } from 'node:http';
import { errorHeaders, mcpHttpError, toGatewayError } from '../error-mapping.js';

function writeJson(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  writeJsonText(res, status, JSON.stringify(body), headers);
}

export function writeJsonText(res: ServerResponse, status: number, text: string, headers?: Record<string, string>): void {
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** A typed error as an HTTP-level JSON-RPC error, with the headers its answer carries (`Retry-After`, a bearer challenge). */
export function writeError(res: ServerResponse, err: unknown): void {
  const typed = toGatewayError(err);
  const { status, body } = mcpHttpError(typed);
  writeJson(res, status, body, errorHeaders(typed));
}
