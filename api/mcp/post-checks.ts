/**
 * The checks of every POST to /mcp that need no session: media types, the
 * body's JSON-RPC shape and batch size. Either the messages, or why not.
 */
import type { IncomingMessage } from 'node:http';
import { isJsonRpcMessage, mediaType } from '../../runtime/transports/json-rpc.js';
import { GatewayError, InvalidMessageError, NotAcceptableError } from '../../schemas/errors.js';
import { invalidJson } from '../error-mapping.js';

export type Message = Record<string, unknown>;

export const MAX_BATCH_SIZE = 100;

/** A POST's answer may be JSON or an SSE stream: the client must take both (406 otherwise). */
export function checkAccept(req: IncomingMessage): NotAcceptableError | undefined {
  const accept = req.headers.accept;
  if (accept?.includes('application/json') && accept.includes('text/event-stream')) return undefined;
  return new NotAcceptableError('Not Acceptable: Client must accept both application/json and text/event-stream');
}

/** The messages of a POST, or the typed error that refuses it. */
export function checkPost(req: IncomingMessage, body: unknown): { messages: Message[]; batch: boolean } | { refusal: GatewayError } {
  const notAcceptable = checkAccept(req);
  if (notAcceptable) return { refusal: notAcceptable };
  if (mediaType(req.headers['content-type']) !== 'application/json') {
    return { refusal: new GatewayError('unsupported_media_type', 'Unsupported Media Type: Content-Type must be application/json') };
  }
  if (body === undefined) return { refusal: invalidJson('no body') };
  const batch = Array.isArray(body);
  if (batch && body.length === 0) return { refusal: new InvalidMessageError('Invalid Request: empty batch') };
  if (batch && body.length > MAX_BATCH_SIZE) return { refusal: new InvalidMessageError(`Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`) };
  const messages = (batch ? body : [body]) as unknown[];
  if (!messages.every(isJsonRpcMessage)) return { refusal: new InvalidMessageError('Invalid Request: not a JSON-RPC 2.0 message') };
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
