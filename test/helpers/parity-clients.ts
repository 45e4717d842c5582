/**
 * The client side of test/e2e/runtime/transports/transport-parity-*.test.ts: a real SDK Client over
 * the gateway's client transports or the SDK's (the v2 transport, which ours
 * follows), bare or behind the ordered-delivery wrapper every gateway backend
 * transport goes through.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { NodeStreamableHttpClientTransport } from '../../runtime/transports/node-streamable-http-client-transport.js';
import { OrderedDeliveryTransport } from '../../runtime/transports/ordered-delivery.js';
import { Changes } from './changes.js';

export type ClientKind = 'sdk' | 'ours' | 'sdk+ordered' | 'ours+ordered';
export const CLIENT_KINDS: readonly ClientKind[] = ['sdk', 'ours', 'sdk+ordered', 'ours+ordered'];

export const isOrdered = (kind: ClientKind): boolean => kind.endsWith('+ordered');

/** What both streamable-HTTP client transports offer beyond Transport. */
export type HttpClientTransport = StreamableHTTPClientTransport | NodeStreamableHttpClientTransport;

export interface HttpTransportOptions {
  headers?: Record<string, string>;
  /** Reconnection of the GET stream; tests use a short first delay so they do not wait a second. */
  reconnection?: { initialReconnectionDelay: number; maxReconnectionDelay: number; reconnectionDelayGrowFactor: number; maxRetries: number };
}

export const FAST_RECONNECTION = { initialReconnectionDelay: 5, maxReconnectionDelay: 50, reconnectionDelayGrowFactor: 1.5, maxRetries: 2 };

/** The transport a Client connects to (`transport`) and the streamable-HTTP transport inside it (`http`). */
export function httpClientTransport(kind: ClientKind, url: string, opts: HttpTransportOptions = {}): { transport: Transport; http: HttpClientTransport } {
  const reconnection = opts.reconnection ?? FAST_RECONNECTION;
  const http: HttpClientTransport = kind.startsWith('ours')
    ? new NodeStreamableHttpClientTransport(new URL(url), { headers: opts.headers, reconnection })
    : new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: opts.headers }, reconnectionOptions: reconnection });
  return { transport: isOrdered(kind) ? new OrderedDeliveryTransport(http) : http, http };
}

/** Wraps a transport in the ordered-delivery adapter when `kind` says so. */
export function maybeOrdered(kind: ClientKind, transport: Transport): Transport {
  return isOrdered(kind) ? new OrderedDeliveryTransport(transport) : transport;
}

export interface TestClient {
  client: Client;
  /** tools/list_changed notifications received. */
  listChanged: number;
  /** Sampling and elicitation requests the client answered, by their prompt or message. */
  served: string[];
  /** Errors the transport reported through onerror. */
  errors: Error[];
  changes: Changes;
}

/**
 * A Client that answers sampling (`echo: <prompt>`) and elicitation (accepts
 * with `{ answer: 'yes' }`) and counts tools/list_changed notifications.
 */
export function testClient(): TestClient {
  const client = new Client({ name: 'parity-client', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
  const changes = new Changes();
  const t: TestClient = { client, listChanged: 0, served: [], errors: [], changes };
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    const first = request.params.messages[0]?.content;
    const prompt = first && 'text' in first ? String(first.text) : '';
    t.served.push(`sampling:${prompt}`);
    changes.notify();
    return { role: 'assistant', content: { type: 'text', text: `echo: ${prompt}` }, model: 'parity' };
  });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    t.served.push(`elicitation:${request.params.message}`);
    changes.notify();
    return { action: 'accept', content: { answer: 'yes' } };
  });
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    t.listChanged++;
    changes.notify();
  });
  client.onerror = (error) => {
    t.errors.push(error);
    changes.notify();
  };
  return t;
}
