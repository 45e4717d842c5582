/**
 * Routes each client request to the backend that owns the name or URI, with
 * the backend's request timeout, through the interceptor chain (audit,
 * telemetry). It is also the bridge for backend-initiated traffic: a request
 * a backend raises during a call goes to the client session whose call is in
 * flight there.
 */
import { McpError, type JSONRPCRequest, type Notification } from '@modelcontextprotocol/sdk/types.js';
import {
  BackendNotReadyError,
  BackendUnavailableError,
  PromptNotFoundError,
  ResourceNotFoundError,
  ToolNotFoundError,
  BadRequestError,
} from '../../schemas/errors.js';
import type { ServingBackends } from '../backends/serving-backends.js';
import type { BackendBridge, BackendConnection } from '../backends/backend-connection.js';
import { matchTemplate, type Route } from './route-table.js';
import { compose, type Interceptor, type OperationContext, type OperationMethod, type OperationRunner } from './operation.js';
import type { CallerContext, ForwardRequestOptions, JsonObject, ProgressHandler } from './caller.js';
import { InFlightCalls } from './in-flight-calls.js';
import { RpcCode } from '../../schemas/json-rpc-codes.js';

export interface NotificationSink {
  /**
   * A backend notification other than list changes (resource updates, log
   * messages), with the callers that have requests in flight at that backend:
   * a notification sent during a call belongs on that call's response stream.
   */
  (backend: string, notification: Notification, inFlight: readonly CallerContext[]): void;
}

/** Picks a client for a backend request that no in-flight call explains (e.g. roots/list at startup). */
export type FallbackRequestTarget = (request: JSONRPCRequest, signal: AbortSignal, onprogress?: ProgressHandler) => Promise<JsonObject>;

export class Router implements BackendBridge {
  private run: OperationRunner;
  private readonly inFlight = new InFlightCalls();
  notificationSink: NotificationSink = () => undefined;
  /** A backend's phase, for errors about names whose backend is not serving. */
  backendPhase: (backend: string) => string | undefined = () => undefined;
  fallbackRequestTarget?: FallbackRequestTarget;

  constructor(private readonly pool: ServingBackends) {
    this.run = compose([]);
  }

  setInterceptors(interceptors: readonly Interceptor[]): void {
    this.run = compose(interceptors);
  }

  callTool(caller: CallerContext, params: JsonObject, opts: ForwardRequestOptions = {}): Promise<JsonObject> {
    const name = params.name;
    if (typeof name !== 'string') return Promise.reject(new BadRequestError('tools/call needs a string `name`'));
    return this.operation(
      'call_tool',
      name,
      caller,
      () => this.pool.snapshot.tools.get(name),
      () => new ToolNotFoundError(name),
      (route) => this.forward(route, 'tools/call', { ...params, name: route.original }, caller, opts),
    );
  }

  getPrompt(caller: CallerContext, params: JsonObject, opts: ForwardRequestOptions = {}): Promise<JsonObject> {
    const name = params.name;
    if (typeof name !== 'string') return Promise.reject(new BadRequestError('prompts/get needs a string `name`'));
    return this.operation(
      'get_prompt',
      name,
      caller,
      () => this.pool.snapshot.prompts.get(name),
      () => new PromptNotFoundError(name),
      (route) => this.forward(route, 'prompts/get', { ...params, name: route.original }, caller, opts),
    );
  }

  readResource(caller: CallerContext, params: JsonObject, opts: ForwardRequestOptions = {}): Promise<JsonObject> {
    const uri = params.uri;
    if (typeof uri !== 'string') return Promise.reject(new BadRequestError('resources/read needs a string `uri`'));
    return this.operation(
      'read_resource',
      uri,
      caller,
      () => this.resourceRoute(uri),
      () => new ResourceNotFoundError(uri),
      (route) => this.forward(route, 'resources/read', params, caller, opts),
    );
  }

  /** completion/complete, routed by the prompt name or resource (template) URI it refers to. */
  complete(caller: CallerContext, params: JsonObject, opts: ForwardRequestOptions = {}): Promise<JsonObject> {
    const ref = params.ref as { type?: string; name?: string; uri?: string } | undefined;
    if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') {
      const route = this.pool.snapshot.prompts.get(ref.name);
      if (!route) return Promise.reject(new PromptNotFoundError(ref.name));
      return this.forward(route, 'completion/complete', { ...params, ref: { ...ref, name: route.original } }, caller, opts);
    }
    if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') {
      const snap = this.pool.snapshot;
      const route = snap.templates.find((t) => t.template.uriTemplate === ref.uri) ?? this.resourceRoute(ref.uri);
      if (!route) return Promise.reject(new ResourceNotFoundError(ref.uri));
      return this.forward(route, 'completion/complete', params, caller, opts);
    }
    return Promise.reject(new BadRequestError('completion/complete needs a ref/prompt name or ref/resource uri'));
  }

  /** Sends a request straight to one backend (subscribe, unsubscribe, logging level). */
  async toBackend(backend: string, method: string, params: JsonObject | undefined, signal?: AbortSignal): Promise<JsonObject> {
    const conn = this.serving(backend);
    return conn.request(method, params, { signal, timeoutMs: conn.requestTimeoutMs });
  }

  /** The connection now serving a backend, if any (its identity changes when the backend reconnects). */
  connection(backend: string): BackendConnection | undefined {
    return this.pool.get(backend);
  }

  /** Forwarded requests still waiting for their backend. */
  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /** Resolves once every forwarded request has finished (graceful shutdown waits on this). */
  whenIdle(): Promise<void> {
    return this.inFlight.whenIdle();
  }

  resourceRoute(uri: string): Route | undefined {
    const snap = this.pool.snapshot;
    return snap.resources.get(uri) ?? matchTemplate(snap, uri);
  }

  // --- BackendBridge: traffic the backend starts ---

  onServerRequest(backend: string, request: JSONRPCRequest, signal: AbortSignal): Promise<JsonObject> {
    // The backend asked for progress on its request: the client gets a token of
    // the gateway's, and its progress goes back under the backend's token.
    const token = (request.params?._meta as { progressToken?: string | number } | undefined)?.progressToken;
    const conn = this.pool.get(backend);
    const onprogress: ProgressHandler | undefined =
      token === undefined || !conn ? undefined : (p) => void conn.notify('notifications/progress', { ...p, progressToken: token });
    const caller = this.inFlight.latest(backend);
    if (caller?.sendRequest) return caller.sendRequest({ method: request.method, params: request.params }, signal, onprogress);
    if (this.fallbackRequestTarget) return this.fallbackRequestTarget(request, signal, onprogress);
    return Promise.reject(new McpError(RpcCode.InvalidRequest, `No client session can answer ${request.method} for backend '${backend}'`));
  }

  onNotification(backend: string, notification: Notification): void {
    this.notificationSink(backend, notification, this.inFlight.callers(backend));
  }

  // --- internals ---

  private operation<R extends Route>(
    method: OperationMethod,
    capability: string,
    caller: CallerContext,
    lookup: () => R | undefined,
    notFound: () => Error,
    forward: (route: R) => Promise<JsonObject>,
  ): Promise<JsonObject> {
    const ctx: OperationContext = {
      method,
      capability,
      sessionId: caller.sessionId,
      transport: caller.transport,
      clientIp: caller.clientIp,
      userId: caller.userId,
      requestId: caller.requestId,
    };
    // async, so an unknown name becomes a rejected promise even with no interceptor installed.
    return this.run(ctx, async () => {
      const route = lookup();
      if (!route) throw this.notServing(ctx) ?? notFound();
      ctx.backend = route.backend;
      ctx.originalName = route.original;
      return forward(route);
    });
  }

  private async forward(route: Route, method: string, params: JsonObject, caller: CallerContext, opts: ForwardRequestOptions): Promise<JsonObject> {
    const conn = this.serving(route.backend);
    opts.onBackend?.(route.backend);
    const outgoing = stripProgressToken(params);
    const release = this.inFlight.add(route.backend, caller);
    try {
      return await conn.request(method, outgoing, { signal: opts.signal, timeoutMs: conn.requestTimeoutMs, onprogress: opts.onprogress });
    } finally {
      release();
    }
  }

  /** A name that a backend not serving now had: say which backend and what it is doing (the audit record names it too). */
  private notServing(ctx: OperationContext): Error | undefined {
    const route = this.pool.snapshot.unavailable.get(ctx.capability);
    if (route === undefined) return undefined;
    ctx.backend = route.backend;
    ctx.originalName = route.original;
    return new BackendNotReadyError(ctx.capability, route.backend, this.backendPhase(route.backend) ?? 'not connected');
  }

  private serving(backend: string): BackendConnection {
    const conn = this.pool.get(backend);
    if (!conn) throw new BackendUnavailableError(backend, 'not connected');
    return conn;
  }
}

/**
 * The client's progress token means nothing to the backend: the SDK issues its
 * own when progress is relayed, so the client's is removed from `_meta`.
 */
function stripProgressToken(params: JsonObject): JsonObject {
  const meta = params._meta as JsonObject | undefined;
  if (!meta || !('progressToken' in meta)) return params;
  const { progressToken: _drop, ...rest } = meta;
  return { ...params, _meta: rest };
}
