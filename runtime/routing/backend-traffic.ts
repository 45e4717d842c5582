/**
 * Traffic a backend starts: requests (sampling, elicitation, roots) and
 * notifications (log messages, resource updates). MCP does not link them to
 * the client call that caused them, so they go to the client session whose
 * call is in flight at that backend (the most recent one): exact whenever one
 * session at a time calls the backend.
 */
import type { JSONRPCRequest, Notification } from '@modelcontextprotocol/sdk/types.js';
import type { BackendBridge } from '../backends/backend-connection.js';
import type { CallerContext, JsonObject, ProgressHandler } from './caller.js';
import type { InFlightCalls } from './in-flight-calls.js';

/**
 * Where a backend notification goes, with the callers that have requests in
 * flight at that backend: a notification sent during a call belongs on that
 * call's response stream.
 */
export type NotificationSink = (backend: string, notification: Notification, inFlight: readonly CallerContext[]) => void;

/** Picks a client for a backend request that no in-flight call explains (e.g. roots/list at startup). */
export type FallbackRequestTarget = (request: JSONRPCRequest, signal: AbortSignal, onprogress?: ProgressHandler) => Promise<JsonObject>;

/** A backend's side of a relayed progress notification. */
export type BackendNotifier = (backend: string, method: string, params: JsonObject) => void;

export interface BackendTrafficTargets {
  notifications: NotificationSink;
  fallbackRequests: FallbackRequestTarget;
  /** Sends a notification back to a backend (progress of the client's answer to its request). */
  notifyBackend: BackendNotifier;
}

export class BackendTraffic implements BackendBridge {
  constructor(
    private readonly inFlight: InFlightCalls,
    private readonly targets: () => BackendTrafficTargets,
  ) {}

  onServerRequest(backend: string, request: JSONRPCRequest, signal: AbortSignal): Promise<JsonObject> {
    const t = this.targets();
    // The backend asked for progress on its request: the client gets a token of
    // the gateway's, and its progress goes back under the backend's token.
    const token = (request.params?._meta as { progressToken?: string | number } | undefined)?.progressToken;
    const onprogress: ProgressHandler | undefined =
      token === undefined ? undefined : (p) => t.notifyBackend(backend, 'notifications/progress', { ...p, progressToken: token });
    const caller = this.inFlight.latest(backend);
    if (caller?.sendRequest) return caller.sendRequest({ method: request.method, params: request.params }, signal, onprogress);
    return t.fallbackRequests(request, signal, onprogress);
  }

  onNotification(backend: string, notification: Notification): void {
    this.targets().notifications(backend, notification, this.inFlight.callers(backend));
  }
}
