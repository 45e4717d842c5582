/**
 * The server side of the legacy HTTP+SSE transport (protocol 2024-11-05, and
 * the /sse front door of every 2025 revision): the GET's response is the
 * one event stream of the session, whose first event names the endpoint the
 * client POSTs its messages to; every message to the client is an event on
 * the stream.
 *
 * The SDK's v2 line serves no HTTP+SSE (its frozen v1 copy ships in a
 * deprecated package that pulls in Express); the transport is small, so it
 * is ours, on Node's own response, and knows which requests are unanswered
 * (a second request with an id still in flight would share its answer).
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { JSONRPCMessage, RequestId, Transport } from '@modelcontextprotocol/server';
import { isResponseMessage, serializeMessage } from '../../runtime/transports/json-rpc.js';

export class SseServerTransport implements Transport {
  readonly sessionId = randomUUID();
  /** Requests of the client that are not answered yet. */
  readonly inFlight = new Set<RequestId>();
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private open = false;

  constructor(
    /** Where the client POSTs its messages (`?sessionId=` is added). */
    private readonly endpoint: string,
    private readonly res: ServerResponse,
  ) {}

  async start(): Promise<void> {
    if (this.open) throw new Error('SSE transport already started');
    this.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive' });
    this.res.write(`event: endpoint\ndata: ${this.endpoint}?sessionId=${this.sessionId}\n\n`);
    this.open = true;
    this.res.on('close', () => this.ended());
  }

  /** A message the client POSTed (checked by the route). */
  receive(message: JSONRPCMessage): void {
    const m = message as { id?: RequestId; method?: string };
    if (m.method !== undefined && m.id !== undefined) this.inFlight.add(m.id);
    this.onmessage?.(message);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.open) throw new Error('Not connected');
    if (isResponseMessage(message as Record<string, unknown>)) this.inFlight.delete((message as { id: RequestId }).id);
    this.res.write(`event: message\ndata: ${serializeMessage(message)}\n\n`);
  }

  async close(): Promise<void> {
    this.res.end();
    this.ended();
  }

  private ended(): void {
    if (!this.open) return;
    this.open = false;
    this.onclose?.();
  }
}
