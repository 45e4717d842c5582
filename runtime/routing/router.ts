/**
 * Routes each client operation (tool call, prompt fetch, resource read,
 * completion) to whatever serves the name or URI now (a backend, or the
 * gateway's own skills). Each method says what its operation is (an
 * OperationSpec); every operation then takes the same path, the call
 * pipeline declared in call-pipeline.ts, whose steps live in steps/.
 */
import { BackendUnavailableError, PromptNotFoundError, ResourceNotFoundError, ToolNotFoundError, BadRequestError } from '../../schemas/errors.js';
import type { ServingTarget } from '../backends/serving-backends.js';
import type { PluginChain } from '../plugins/plugin-chain.js';
import { matchTemplate, type Route, type RouteTable } from './route-table.js';
import { compose, type Interceptor, type OperationContext, type OperationRunner } from './operation.js';
import type { CallerContext, ForwardOptions, JsonObject } from './caller.js';
import type { InFlightCalls } from './in-flight-calls.js';
import { ALLOW_ALL, type AccessCheck } from './access-check.js';
import { traceCarrierOf } from '../observability/telemetry/trace-context.js';
import { NO_FIRST_CONNECTS, type FirstConnects } from './first-connects.js';
import type { SignInWaiter } from '../rounds/sign-in-rounds.js';
import type { RoundLimits } from '../rounds/round-limits.js';
import { operationFor } from './caller-operation.js';
import { callPipeline, type OperationSpec, type PipelineCall } from './call-pipeline.js';
import { resolveStep } from './steps/resolve-step.js';
import { authorizeStep } from './steps/authorize-step.js';
import { guardStep } from './steps/guard-step.js';
import { dispatchStep } from './steps/dispatch-step.js';
import { askForInputStep } from './steps/ask-for-input-step.js';
import { signInStep } from './steps/sign-in-step.js';

/** `server.input_rounds` defaults, until the running config's are set. */
const DEFAULT_ROUND_LIMITS: RoundLimits = { inputTimeoutMs: 300_000, maxRounds: 8, maxInputBytes: 262_144 };

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
  private readonly pipeline: (call: PipelineCall) => Promise<JsonObject>;

  constructor(
    private readonly serving: RouteSource,
    private readonly inFlight: InFlightCalls,
    /** A backend's phase (observed state), for errors about names whose backend is not serving. */
    phaseOf: (backend: string) => string | undefined = () => undefined,
    /** Whether a caller may use a capability (runtime/access); a refusal answers as an unknown name does. */
    access: AccessCheck = ALLOW_ALL,
    /** Backends in their first connect: a name none serves yet waits for them (bounded). */
    firstConnects: FirstConnects = NO_FIRST_CONNECTS,
  ) {
    const target = (backend: string) => this.serving.target(backend);
    const limits = () => this.roundLimits();
    this.pipeline = callPipeline({
      observe: (call, next) => this.run(call.ctx, next),
      resolve: resolveStep({ routes: () => this.serving.routes, phaseOf, firstConnects }),
      authorize: authorizeStep(access),
      guard: guardStep(() => this.plugins),
      dispatch: dispatchStep(target, inFlight),
      askForInput: askForInputStep(limits),
      signIn: signInStep(() => this.signIns, limits),
      send: (call) => call.request!(),
    });
  }

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
    const ctx: OperationContext = { ...operationFor(caller, op.method, op.capability), inputRounds: caller.inputRounds, trace: traceCarrierOf(op.meta) };
    return this.pipeline({ ctx, caller, opts, op });
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

function resourceRoute(table: RouteTable, uri: string): Route | undefined {
  return table.resources.get(uri) ?? matchTemplate(table, uri);
}
