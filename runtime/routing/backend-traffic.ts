/**
 * Traffic a backend starts: requests (sampling, elicitation, roots) and
 * notifications (log messages, resource updates). MCP does not link them to
 * the client call that caused them, so they go to the client whose call is
 * in flight at that backend (the most recent one): exact whenever one client
 * at a time calls the backend. What no call explains goes to the fan-out
 * (./client-fanout.ts).
 */
import type { BackendBridge } from '../backends/backend-connection.js';
import type { CallerContext, JsonObject, PeerMessage, ProgressHandler } from './caller.js';
import type { InFlightCalls } from './in-flight-calls.js';

/** Where backend traffic goes when it is not an in-flight call's (./client-fanout.ts). */
export interface BackendTrafficTargets {
  /** A notification, with the callers that have requests in flight at that backend (it belongs on their streams). */
  notify(backend: string, notification: PeerMessage, inFlight: readonly CallerContext[]): void;
  /** A backend request no in-flight call explains (e.g. roots/list right after connecting). */
  requestAnyClient(request: PeerMessage, signal: AbortSignal, onprogress?: ProgressHandler): Promise<JsonObject>;
}

export class BackendTraffic implements BackendBridge {
  constructor(
    private readonly inFlight: InFlightCalls,
    private readonly targets: BackendTrafficTargets,
  ) {}

  onServerRequest(backend: string, request: PeerMessage, signal: AbortSignal, onprogress?: ProgressHandler): Promise<JsonObject> {
    const caller = this.inFlight.latest(backend);
    if (caller?.sendRequest) return caller.sendRequest({ method: request.method, params: request.params }, signal, onprogress);
    return this.targets.requestAnyClient(request, signal, onprogress);
  }

  onNotification(backend: string, notification: PeerMessage): void {
    this.targets.notify(backend, notification, this.inFlight.callers(backend));
  }
}
