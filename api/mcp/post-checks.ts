/**
 * The checks of every POST to /mcp that need no session: media types, the
 * body's JSON-RPC shape and batch size. Either the messages, or why not.
 */
import type { IncomingMessage } from 'node:http';
import { isJsonRpcMessage, mediaType } from '../../runtime/transports/json-rpc.js';
import { RpcCode } from '../../schemas/json-rpc-codes.js';

export type Message = Record<string, unknown>;

/** Why a POST is refused before any message reaches the session: an HTTP status and a JSON-RPC error. */
export interface Refusal {
  status: number;
  code: number;
  message: string;
}

export const MAX_BATCH_SIZE = 100;

/** A POST's answer may be JSON or an SSE stream: the client must take both (406 otherwise). */
export function checkAccept(req: IncomingMessage): Refusal | undefined {
  const accept = req.headers.accept;
  if (accept?.includes('application/json') && accept.includes('text/event-stream')) return undefined;
  return { status: 406, code: RpcCode.ServerError, message: 'Not Acceptable: Client must accept both application/json and text/event-stream' };
}

export function checkPost(req: IncomingMessage, body: unknown): { messages: Message[]; batch: boolean } | { refusal: Refusal } {
  const refuse = (status: number, code: number, message: string) => ({ refusal: { status, code, message } });
  const notAcceptable = checkAccept(req);
  if (notAcceptable) return { refusal: notAcceptable };
  if (mediaType(req.headers['content-type']) !== 'application/json') {
    return refuse(415, RpcCode.ServerError, 'Unsupported Media Type: Content-Type must be application/json');
  }
  if (body === undefined) return refuse(400, RpcCode.ParseError, 'Parse error: Invalid JSON');
  const batch = Array.isArray(body);
  if (batch && body.length === 0) return refuse(400, RpcCode.InvalidRequest, 'Invalid Request: empty batch');
  if (batch && body.length > MAX_BATCH_SIZE) return refuse(400, RpcCode.InvalidRequest, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
  const messages = (batch ? body : [body]) as unknown[];
  if (!messages.every(isJsonRpcMessage)) return refuse(400, RpcCode.InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message');
  return { messages: messages as unknown as Message[], batch };
}

export const isInitialize = (m: Message): boolean => m.method === 'initialize' && m.id !== undefined;

/**
 * Whether the client can take an SSE event with an id and no data (a priming
 * event): clients of protocol versions before 2025-11-25 may try to parse the
 * empty data (the SDK's server transport follows the same rule).
 */
export function takesPrimingEvents(protocolVersion: string | undefined): boolean {
  return protocolVersion !== undefined && protocolVersion >= '2025-11-25';
}
