/** Plain HTTP answers on the MCP endpoints' raw responses (the transports own them once a route hands a request over). */
import type { ServerResponse } from 'node:http';
import { mcpHttpError } from '../error-mapping.js';

export function writeJson(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  writeJsonText(res, status, JSON.stringify(body), headers);
}

export function writeJsonText(res: ServerResponse, status: number, text: string, headers?: Record<string, string>): void {
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** A typed error as an HTTP-level JSON-RPC error, with `Retry-After` when the error says when to come back. */
export function writeError(res: ServerResponse, err: unknown): void {
  const { status, body } = mcpHttpError(err);
  const retry = (err as { details?: { retry_after_s?: unknown } }).details?.retry_after_s;
  writeJson(res, status, body, typeof retry === 'number' ? { 'retry-after': String(retry) } : undefined);
}
