/**
 * Routes each client operation (tool call, prompt fetch, resource read,
 * completion) to whatever serves the name or URI now (a backend, or the
 * gateway's own skills), with its request timeout, through the interceptor
 * chain (audit, telemetry). Every operation takes the same path: look the
 * name up in the route table, record the owner, forward; tool calls, prompt
 * gets and resource reads through the plugin chain when one is configured.
 */
import {
  BackendNotReadyError,
  BackendUnavailableError,
  PromptNotFoundError,
  QuarantinedError,
  ResourceNotFoundError,
  ToolNotFoundError,
  BadRequestError,
  BackendsStartingError,
} from '../../schemas/errors.js';
import type { HookMethod } from '../../schemas/plugins.js';
import type { ServingTarget } from '../backends/serving-backends.js';
import type { PluginChain } from '../plugins/plugin-chain.js';
import type { PluginCall } from '../plugins/plugin.js';
import { matchTemplate, type Route, type RouteTable, type ToolEntry } from './route-table.js';
import { compose, type Interceptor, type OperationContext, type OperationMethod, type OperationRunner } from './operation.js';
import type { CallerContext, ForwardOptions, JsonObject } from './caller.js';
import type { InFlightCalls } from './in-flight-calls.js';
import { ALLOW_ALL, type AccessCheck } from './access-check.js';
import { callFacts } from './call-facts.js';
import type { CapabilityKind } from '../../schemas/access-config.js';
import { traceCarrierOf, type TraceCarrier } from '../observability/telemetry/trace-context.js';
import { afterFirstConnects, FIRST_CONNECT_RETRY_S, NO_FIRST_CONNECTS, type FirstConnects } from './first-connects.js';
import { isInputRequired } from '../rounds/input-requests.js';
import { answerForSession } from '../rounds/session-rounds.js';
import { signInForSession, type SignInWaiter } from '../rounds/sign-in-rounds.js';
import type { RoundLimits } from '../rounds/round-limits.js';

/** `server.input_rounds` defaults, until the running config's are set. */
const DEFAULT_ROUND_LIMITS: RoundLimits = { inputTimeoutMs: 300_000, maxRounds: 8, maxInputBytes: 262_144 };

/** One operation: what it is called, how its route is found, and what goes to the owner. */
interface OperationSpec {
  method: OperationMethod;
  /** What the policies call it (`tool:`, `resource:`, `prompt:`). */
  kind: CapabilityKind;
  /** The exposed name or URI the client asked for. */
  capability: string;
  lookup(table: RouteTable): Route | undefined;
  notFound(): Error;
  /** The request the owner receives, given its route. */
  outgoing(route: Route): { method: string; params: JsonObject };
  /** The plugin hooks it passes (completion passes none). */
  hook?: HookMethod;
  /** The request's `_meta` (where a client's trace context travels). */
  meta?: unknown;
  /** The method on the wire (`tools/call`…) and the client's arguments: what a policy's `when` reads of the call. */
  wireMethod: string;
  arguments?: JsonObject;
}

/** What the router routes over: the current route table and what serves each backend name (runtime/backends/serving-backends.ts). */
export interface RouteSource {
  readonly routes: RouteTable;
  target(backend: string): ServingTarget | undefined;
}

export class Router {
  private run: OperationRunner = compose([]);
  /** None configured: no chain, not even a check per plugin. */
  private plugins: PluginChain | undefined;
  private roundLimits: () => RoundLimits = () => DEFAULT_ROUND_LIMITS;
  private signIns?: SignInWaiter;

  constructor(
    private readonly serving: RouteSource,
    private readonly inFlight: InFlightCalls,
    /** A backend's phase (observed state), for errors about names whose backend is not serving. */
    private readonly phaseOf: (backend: string) => string | undefined = () => undefined,
    /** Whether a caller may use a capability (runtime/access); a refusal answers as an unknown name does. */
    private readonly access: AccessCheck = ALLOW_ALL,
    /** Backends in their first connect: a name none serves yet waits for them (bounded). */
    private readonly firstConnects: FirstConnects = NO_FIRST_CONNECTS,
  ) {}

  setInterceptors(interceptors: readonly Interceptor[]): void {
    this.run = compose(interceptors);
  }

  /** The bounds of calls that ask their client for input (`server.input_rounds` of the running config). */
  setRoundLimits(limits: () => RoundLimits): void {
    this.roundLimits = limits;
  }

  /** Where a session caller's per-user sign-in is waited for (backends with `on_behalf_of.type: user_oauth`). */
  setSignIns(signIns: SignInWaiter): void {
    this.signIns = signIns;
  }

  /** The plugin chain of the running config (runtime/plugins), or none. */
  setPlugins(chain: PluginChain | undefined): void {
    this.plugins = chain;
  }

  callTool(caller: CallerContext, params: JsonObject, opts: ForwardOptions = {}): Promise<JsonObject> {
    const name = params.name;
    if (typeof name !== 'string') return Promise.reject(new BadRequestError('Invalid params: tools/call needs a string `name`'));
    if (!isObjectOrAbsent(params.arguments)) return Promise.reject(new BadRequestError('Invalid params: arguments must be an object'));
    return this.operation(caller, opts, {
      method: 'call_tool',
      kind: 'tool',
      capability: name,
      lookup: (t) => t.tools.get(name),
      notFound: () => new ToolNotFoundError(name),
      outgoing: (route) => ({ method: 'tools/call', params: { ...params, name: route.original } }),
      hook: 'tools/call',
      meta: params._meta,
      wireMethod: 'tools/call',
      arguments: params.arguments as JsonObject | undefined,
    });
  }

  getPrompt(caller: CallerContext, params: JsonObject, opts: ForwardOptions = {}): Promise<JsonObject> {
    const name = params.name;
    if (typeof name !== 'string') return Promise.reject(new BadRequestError('Invalid params: prompts/get needs a string `name`'));
    if (!isObjectOrAbsent(params.arguments)) return Promise.reject(new BadRequestError('Invalid params: arguments must be an object'));
    const notText = Object.entries((params.arguments as JsonObject | undefined) ?? {}).find(([, v]) => typeof v !== 'string');
    if (notText) return Promise.reject(new BadRequestError(`Invalid params: prompt argument \`${notText[0]}\` must be a string`));
    return this.operation(caller, opts, {
      method: 'get_prompt',
      kind: 'prompt',
      capability: name,
      lookup: (t) => t.prompts.get(name),
      notFound: () => new PromptNotFoundError(name),
      outgoing: (route) => ({ method: 'prompts/get', params: { ...params, name: route.original } }),
      hook: 'prompts/get',
      meta: params._meta,
      wireMethod: 'prompts/get',
      arguments: params.arguments as JsonObject | undefined,
    });
  }

  readResource(caller: CallerContext, params: JsonObject, opts: ForwardOptions = {}): Promise<JsonObject> {
    const uri = params.uri;
    if (typeof uri !== 'string') return Promise.reject(new BadRequestError('Invalid params: resources/read needs a string `uri`'));
    return this.operation(caller, opts, {
      method: 'read_resource',
      kind: 'resource',
      capability: uri,
      lookup: (t) => resourceRoute(t, uri),
      notFound: () => new ResourceNotFoundError(uri),
      // URIs are never rewritten.
      outgoing: () => ({ method: 'resources/read', params }),
      hook: 'resources/read',
      meta: params._meta,
      wireMethod: 'resources/read',
    });
  }

  /** completion/complete, routed by the prompt name or resource (template) URI it refers to. */
  complete(caller: CallerContext, params: JsonObject, opts: ForwardOptions = {}): Promise<JsonObject> {
    const ref = params.ref as { type?: string; name?: string; uri?: string } | undefined;
    const argument = params.argument as { name?: unknown; value?: unknown } | undefined;
    if (typeof argument?.name !== 'string' || typeof argument.value !== 'string') {
      return Promise.reject(new BadRequestError('Invalid params: completion/complete needs `argument` with a string `name` and `value`'));
    }
    if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') {
      const name = ref.name;
      return this.operation(caller, opts, {
        method: 'complete',
        kind: 'prompt',
        capability: name,
        lookup: (t) => t.prompts.get(name),
        notFound: () => new PromptNotFoundError(name),
        outgoing: (route) => ({ method: 'completion/complete', params: { ...params, ref: { ...ref, name: route.original } } }),
        wireMethod: 'completion/complete',
      });
    }
    if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') {
      const uri = ref.uri;
      return this.operation(caller, opts, {
        method: 'complete',
        kind: 'resource',
        capability: uri,
        lookup: (t) => t.templates.find((e) => e.template.uriTemplate === uri) ?? resourceRoute(t, uri),
        notFound: () => new ResourceNotFoundError(uri),
        outgoing: () => ({ method: 'completion/complete', params }),
        wireMethod: 'completion/complete',
      });
    }
    return Promise.reject(new BadRequestError('completion/complete needs a ref/prompt name or ref/resource uri'));
  }

  /** Runs an operation that routes no name (tasks/*: runtime/tasks/task-routes.ts) through the same interceptors (audit, telemetry). */
  runOperation<T>(ctx: OperationContext, step: () => Promise<T>): Promise<T> {
    return this.run(ctx, step);
  }

  /** Sends a request straight to one owner (subscribe, unsubscribe, logging level): no audit, no operation. */
  async toBackend(backend: string, method: string, params: JsonObject | undefined, signal?: AbortSignal): Promise<JsonObject> {
    const target = this.target(backend);
    return target.request(method, params, { signal, timeoutMs: target.requestTimeoutMs });
  }

  /** What serves a backend's routes now; its identity changes when the backend reconnects. */
  targetOf(backend: string): ServingTarget | undefined {
    return this.serving.target(backend);
  }

  resourceRoute(uri: string): Route | undefined {
    return resourceRoute(this.serving.routes, uri);
  }

  /** Forwarded requests still waiting for their backend. */
  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /** Resolves once every forwarded request has finished (graceful shutdown waits on this). */
  whenIdle(): Promise<void> {
    return this.inFlight.whenIdle();
  }

  private operation(caller: CallerContext, opts: ForwardOptions, op: OperationSpec): Promise<JsonObject> {
    const ctx: OperationContext = {
      method: op.method,
      capability: op.capability,
      sessionId: caller.sessionId,
      transport: caller.transport,
      clientIp: caller.clientIp,
      userId: caller.userId,
      roles: caller.roles,
      client: caller.client,
      protocolVersion: caller.protocolVersion,
      requestId: caller.requestId,
      metadata: caller.metadata,
      inputRounds: caller.inputRounds,
      trace: traceCarrierOf(op.meta),
    };
    // async, so an unknown name becomes a rejected promise even with no interceptor installed.
    return this.run(ctx, async () => {
      const route = op.lookup(this.serving.routes) ?? (await this.unlisted(ctx, caller, op));
      ctx.backend = route.backend;
      ctx.originalName = route.original;
      if (this.refused(ctx, caller, op, route)) throw op.notFound();
      const { method, params } = op.outgoing(route);
      const chain = this.plugins;
      if (chain === undefined || op.hook === undefined) return this.forward(route.backend, method, withTrace(params, ctx.outgoingTrace), caller, opts, ctx);
      const call = pluginCall(op.hook, op.capability, route, params, caller, opts);
      const given = call.arguments;
      // Arguments the plugins left as they were go as they came (absent stays absent); a resource has none.
      const withArguments = (args: JsonObject) => (args === given || op.hook === 'resources/read' ? params : { ...params, arguments: args });
      return chain.run(ctx, call, (args) => this.forward(route.backend, method, withTrace(withArguments(args), ctx.outgoingTrace), caller, opts, ctx));
    });
  }

  private async forward(
    backend: string,
    method: string,
    params: JsonObject,
    caller: CallerContext,
    opts: ForwardOptions,
    ctx?: OperationContext,
  ): Promise<JsonObject> {
    const target = this.target(backend);
    const via = target.actsForCallers;
    if (ctx && via && caller.userId !== undefined) ctx.actingAs = { userId: caller.userId, via };
    opts.onBackend?.(backend);
    const release = this.inFlight.add(backend, caller);
    const sent = stripProgressToken(params);
    const options = { signal: opts.signal, timeoutMs: target.requestTimeoutMs, onprogress: opts.onprogress, caller };
    try {
      const first = target.request(method, sent, options);
      const signIns = via === 'user_oauth' ? this.signIns : undefined;
      // A user who must sign in first is sent the URL when the client can show one, and the call is made again.
      const result = await (signIns
        ? first.catch((err: unknown) => signInForSession(err, caller, () => target.request(method, sent, options), this.roundLimits(), signIns, opts.signal))
        : first);
      if (!isInputRequired(result)) return result;
      // A 2026-07-28 backend needs the client's input: a client that is sent requests is asked here, round after round.
      const repeat = (round: JsonObject) => target.request(method, { ...sent, ...round }, options);
      return await answerForSession(result, caller, repeat, this.roundLimits(), backend, opts.signal);
    } finally {
      if (ctx && caller.inputRounds) ctx.inputRounds = caller.inputRounds;
      release();
    }
  }

  /**
   * A name the route table lacks. Unless something explains it (held back,
   * its backend not serving), it may belong to a backend still in its first
   * connect: it waits for those (bounded) and is looked up again; then it is
   * unknown, or, while some still connect, told to come back (a retryable
   * error, never "unknown" while the answer may still change). A served name
   * never gets here.
   */
  private async unlisted(ctx: OperationContext, caller: CallerContext, op: OperationSpec): Promise<Route> {
    const lookup = () => op.lookup(this.serving.routes);
    const route = this.notServing(ctx, caller, op) ? undefined : await afterFirstConnects(this.firstConnects, lookup);
    if (route) return route;
    const pending = this.firstConnects.pending();
    throw this.notServing(ctx, caller, op) ?? (pending > 0 ? new BackendsStartingError(op.capability, pending, FIRST_CONNECT_RETRY_S) : op.notFound());
  }

  /**
   * A name not served now: held back until an operator approves its
   * definition, or had by a backend not serving now. Say which backend and
   * why (the audit record names it too), unless the caller may not use it:
   * then it is as unknown as it is when its backend serves. Only a name the
   * table lacks gets here: a served name costs nothing more.
   */
  private notServing(ctx: OperationContext, caller: CallerContext, op: OperationSpec): Error | undefined {
    const { quarantined } = this.serving.routes;
    const kind = op.kind === 'resource' ? undefined : op.kind;
    const held = kind && (kind === 'tool' ? quarantined.tools : quarantined.prompts).get(ctx.capability);
    if (kind && held) {
      ctx.backend = held.backend;
      ctx.originalName = held.original;
      if (this.refused(ctx, caller, op)) return op.notFound();
      return new QuarantinedError(kind, ctx.capability, held.backend, held.reason);
    }
    const route = this.serving.routes.unavailable.get(ctx.capability);
    if (route === undefined) return undefined;
    ctx.backend = route.backend;
    ctx.originalName = route.original;
    if (this.refused(ctx, caller, op, route)) return op.notFound();
    return new BackendNotReadyError(ctx.capability, route.backend, this.phaseOf(route.backend) ?? 'not connected');
  }

  /** Asks the policies about the resolved capability; a refusal is recorded on the operation for the audit. */
  private refused(ctx: OperationContext, caller: CallerContext, op: OperationSpec, route?: Route): boolean {
    const decision = this.access.check(caller, op.kind, ctx.capability, ctx.backend!, () => callFacts(caller, op.wireMethod, op.arguments, route));
    if (decision.allowed) return false;
    ctx.denial = decision;
    return true;
  }

  private target(backend: string): ServingTarget {
    const target = this.serving.target(backend);
    if (!target) throw new BackendUnavailableError(backend, 'not connected');
    return target;
  }
}

/**
 * Checked here rather than left to the backend: a backend's own schema
 * check would answer with a long validation dump, or not as -32602.
 */
function isObjectOrAbsent(value: unknown): boolean {
  return value === undefined || (typeof value === 'object' && value !== null && !Array.isArray(value));
}

/** An operation as the plugins see it: a tool's annotations come from the route table. */
function pluginCall(method: HookMethod, name: string, route: Route, params: JsonObject, caller: CallerContext, opts: ForwardOptions): PluginCall {
  const args = params.arguments as JsonObject | undefined;
  return {
    method,
    name,
    backend: route.backend,
    originalName: route.original,
    annotations: (route as Partial<ToolEntry>).tool?.annotations,
    arguments: method === 'resources/read' ? {} : (args ?? {}),
    caller,
    signal: opts.signal,
  };
}

function resourceRoute(table: RouteTable, uri: string): Route | undefined {
  return table.resources.get(uri) ?? matchTemplate(table, uri);
}

/** With telemetry on, the backend is told the gateway's span is the parent of its own. */
function withTrace(params: JsonObject, trace: TraceCarrier | undefined): JsonObject {
  if (trace === undefined) return params;
  return { ...params, _meta: { ...(params._meta as JsonObject | undefined), ...trace } };
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
