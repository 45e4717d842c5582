/**
 * The call pipeline: the steps every client operation (tool call, prompt
 * get, resource read, completion) passes on its way to its owner, declared
 * once, here, in order. Each step wraps the ones after it, so a failure
 * anywhere (unknown name, refusal, backend down, timeout) passes back through
 * the steps before it: audit and telemetry see every outcome.
 *
 * In front of the pipeline, not a step of it: the optimizer's meta-tools
 * (`find_tool`, `call_tool`) are answered from the method table
 * (api/mcp/methods/shared-methods.ts); `call_tool` enters here at the top
 * like any tools/call. Pinning acts on the route table (a held-back name is
 * not routed), so it shows here as the resolve step's answer.
 */
import type { CapabilityKind } from '../../schemas/access-config.js';
import type { HookMethod } from '../../schemas/plugins.js';
import type { ServingTarget } from '../backends/serving-backends.js';
import type { CallerContext, ForwardOptions, JsonObject } from './caller.js';
import type { OperationContext, OperationMethod } from './operation.js';
import type { Route, RouteTable } from './route-table.js';

/** One operation: what it is called, how its route is found, and what goes to the owner. */
export interface OperationSpec {
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

/** One operation on its way through the pipeline: what the steps have learnt of it so far. */
export interface PipelineCall {
  readonly ctx: OperationContext;
  readonly caller: CallerContext;
  readonly opts: ForwardOptions;
  readonly op: OperationSpec;
  /** Set by resolve: the owner's route (absent for a held-back name, which has no route). */
  route?: Route;
  /** Set by resolve for a name not served now (held back, its backend not serving): the error it answers unless the caller may not see it. */
  unserved?: Error;
  /** Set by resolve: the request the owner receives; guard may change its arguments. */
  outgoing?: { method: string; params: JsonObject };
  /** Set by dispatch: what serves the owner now. */
  owner?: ServingTarget;
  /** Set by dispatch: sends the request to the owner, with one round's answers when there are some. */
  request?: (round?: JsonObject) => Promise<JsonObject>;
}

/** A step: does its part, then hands on to the rest (`next`), or answers without it. */
export type CallStep = (call: PipelineCall, next: () => Promise<JsonObject>) => Promise<JsonObject>;

/** The steps, by what they do (runtime/routing/steps/). */
export interface CallSteps {
  observe: CallStep;
  resolve: CallStep;
  authorize: CallStep;
  guard: CallStep;
  dispatch: CallStep;
  askForInput: CallStep;
  signIn: CallStep;
  send: CallStep;
}

/** The order, declared once. */
export function callPipeline(s: CallSteps): (call: PipelineCall) => Promise<JsonObject> {
  return chain([
    s.observe, // 1. audit and telemetry (interceptors): they see every outcome, refusals included
    s.resolve, // 2. the route table: the name's owner; held back by pinning, backend not serving, first connects
    s.authorize, // 3. the policies (roles × names, `when` conditions): a refusal answers as an unknown name does
    s.guard, // 4. the plugin chain (tools/call, prompts/get, resources/read): blocks, redaction, cache, retries
    s.dispatch, // 5. the owner's connection: in-flight count, acting-as, trace context, the client's progress token dropped
    s.askForInput, // 6. a 2026-07-28 backend's input_required asked of a session's client, round after round
    s.signIn, // 7. a user_oauth backend's sign-in handed to the client, then the call again
    s.send, // 8. the request to the owner
  ]);
}

function chain(steps: readonly CallStep[]): (call: PipelineCall) => Promise<JsonObject> {
  return (call) => {
    // A step that throws becomes a rejected promise the steps before it see; no extra promise per step otherwise.
    const step = (i: number): Promise<JsonObject> => {
      try {
        if (i === steps.length) throw new Error('the call pipeline ends at send: no step comes after it');
        return steps[i](call, () => step(i + 1));
      } catch (err) {
        return Promise.reject(err);
      }
    };
    return step(0);
  };
}
