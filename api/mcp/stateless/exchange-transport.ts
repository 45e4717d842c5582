/**
 * The one transport of the stateless server (./stateless-server.ts): every
 * 2026-07-28 request of every client comes in here with its own HTTP
 * exchange, under an id of the transport's own (clients' ids collide), and
 * its answer and related messages go back to that exchange with the
 * client's id restored. One long-lived SDK Server serves them all, instead
 * of one Server and one web Request/Response per request
 * (docs/architecture.md says why).
 *
 * An error the SDK answers while the request is still being handed over
 * (its checks before any handler runs: an unknown method, a bad `_meta`
 * envelope) is a refusal of the request itself and gets its HTTP status
 * (api/error-mapping.ts); a handler's error is an answer, on 200.
 */
import type { JSONRPCMessage, JSONRPCRequest, MessageClassification, RequestId, Transport, TransportSendOptions } from '@modelcontextprotocol/server';
import { isResponseMessage } from '../../../runtime/transports/json-rpc.js';
import { statelessErrorStatus } from '../../error-mapping.js';
import type { CallerIdentity } from '../../../runtime/access/identity.js';
import type { Exchange } from './exchange.js';
import { SlotTable } from '../../../runtime/slot-table.js';

/** Who sent a stateless request, as the routes found out (the SDK knows nothing of our callers). */
export interface RequestOrigin {
  identity: CallerIdentity;
  clientIp: string;
}

interface Pending {
  exchange: Exchange;
  origin: RequestOrigin;
  /** True while the SDK is still taking the request in: an error now is a refusal, not an answer. */
  handingOver: boolean;
}

export class ExchangeTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: { classification?: MessageClassification }) => void;
  /** Not a Map: this table lives as long as the gateway while its entries churn (../../../runtime/slot-table.ts says why). */
  private readonly pending = new SlotTable<Pending>();

  async start(): Promise<void> {}

  /** Hands one request to the server; its answer and related messages go to `exchange`. */
  dispatch(exchange: Exchange, request: JSONRPCRequest, classification: MessageClassification, origin: RequestOrigin): void {
    const entry: Pending = { exchange, origin, handingOver: true };
    const id = this.pending.add(entry);
    try {
      this.onmessage?.({ ...request, id }, { classification });
    } finally {
      entry.handingOver = false;
    }
  }

  /** The exchange and origin of a request the server is handling, by the id the server knows it by. */
  requestOf(id: RequestId): Pending | undefined {
    return this.pending.get(id as number);
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (isResponseMessage(message as Record<string, unknown>)) {
      const entry = this.pending.take((message as { id: number }).id);
      if (!entry) return;
      const answer = { ...message, id: entry.exchange.clientId } as JSONRPCMessage;
      const code = (message as { error?: { code?: number } }).error?.code;
      entry.exchange.answer(answer, code === undefined ? 200 : statelessErrorStatus(code, entry.handingOver));
      return;
    }
    // A message of the request (progress, a log message, an acknowledgment); 2026-07-28 has no session-wide stream.
    const related = options?.relatedRequestId;
    if (related !== undefined) this.pending.get(related as number)?.exchange.event(message);
  }

  async close(): Promise<void> {
    this.pending.clear();
    this.onclose?.();
  }
}
