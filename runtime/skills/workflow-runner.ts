/**
 * Runs a compiled workflow: each step starts as soon as every step it depends
 * on has finished, so independent steps run in parallel. A step whose tool
 * answers `isError` (or whose call fails) stops the workflow: no later step
 * starts; steps already running are left to finish, so nothing the workflow
 * started outlives its answer. Cancelling the call (signal) cancels the
 * running steps and rejects.
 *
 * The result is an MCP CallToolResult: `content` holds the text of the steps
 * nothing depends on, `structuredContent.steps` maps every finished step id to
 * its text; on failure `isError: true`, and the text and `failed_step` name
 * the step that failed.
 */
import type { CallerContext, JsonObject } from '../routing/caller.js';
import type { CompiledStep, CompiledWorkflow } from './workflow-compiler.js';
import { substitute } from './step-templates.js';

export interface StepContext {
  skill: string;
  workflow: string;
  step: string;
  /** The client the workflow runs for: steps are made on its behalf. */
  caller?: CallerContext;
  signal?: AbortSignal;
}

/** Calls one gateway tool (by its exposed name) and returns the CallToolResult JSON; rejects when the call itself fails. */
export type StepCaller = (tool: string, args: JsonObject, ctx: StepContext) => Promise<JsonObject>;

export interface RunOptions {
  caller?: CallerContext;
  signal?: AbortSignal;
}

/** What a workflow tool's `structuredContent` looks like; advertised as its outputSchema. */
export const WORKFLOW_OUTPUT_SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    steps: { type: 'object', additionalProperties: { type: 'string' }, description: 'Text result of each finished step, by step id.' },
    failed_step: { type: 'string' },
  },
  required: ['steps'],
};

export async function runWorkflow(skill: string, wf: CompiledWorkflow, inputs: JsonObject, call: StepCaller, opts: RunOptions = {}): Promise<JsonObject> {
  const tool = `${skill}_${wf.name}`;
  if (!wf.validateInputs(inputs)) {
    const problems = (wf.validateInputs.errors ?? []).map((e) => `${e.instancePath || '(inputs)'} ${e.message ?? 'is invalid'}`);
    return errorResult(`Invalid arguments for workflow '${tool}': ${problems.join('; ')}`, {});
  }
  const texts: Record<string, string> = {};
  let failure: { step: CompiledStep; message: string } | undefined;

  const runStep = async (step: CompiledStep): Promise<boolean> => {
    opts.signal?.throwIfAborted();
    const args = substitute(step.arguments, { inputs, steps: texts });
    let result: JsonObject;
    try {
      result = await call(step.tool, args, { skill, workflow: wf.name, step: step.id, caller: opts.caller, signal: opts.signal });
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      failure ??= { step, message: err instanceof Error ? err.message : String(err) };
      return false;
    }
    const text = resultText(result);
    texts[step.id] = text;
    if (result.isError === true) {
      failure ??= { step, message: text || 'the tool reported an error' };
      return false;
    }
    return true;
  };

  // One promise per step, chained on its dependencies; the compiler ruled out cycles and unknown ids.
  const done = new Map<string, Promise<boolean>>();
  const schedule = (step: CompiledStep): Promise<boolean> => {
    let p = done.get(step.id);
    if (p) return p;
    const deps = step.dependsOn.map((id) => schedule(wf.steps.find((s) => s.id === id)!));
    p = Promise.all(deps).then((ok) => (ok.every(Boolean) && failure === undefined ? runStep(step) : false));
    done.set(step.id, p);
    return p;
  };
  const outcomes = await Promise.allSettled(wf.steps.map(schedule));
  const rejected = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (rejected) throw rejected.reason;

  if (failure) {
    const { step, message } = failure;
    return errorResult(`Workflow '${tool}' stopped at step '${step.id}' (tool '${step.tool}'): ${message}`, { steps: texts, failed_step: step.id });
  }
  return {
    content: wf.terminal.map((id) => ({ type: 'text', text: texts[id] ?? '' })),
    structuredContent: { steps: texts },
    isError: false,
  };
}

export function errorResult(message: string, structured: JsonObject): JsonObject {
  return { content: [{ type: 'text', text: message }], structuredContent: { steps: {}, ...structured }, isError: true };
}

/** A step's text: its text content items, one per line; else its structured content as JSON. */
export function resultText(result: JsonObject): string {
  const content = Array.isArray(result.content) ? (result.content as Array<{ type?: unknown; text?: unknown }>) : [];
  const texts = content.filter((c) => c.type === 'text' && typeof c.text === 'string').map((c) => c.text as string);
  if (texts.length > 0) return texts.join('\n');
  return result.structuredContent !== undefined ? JSON.stringify(result.structuredContent) : '';
}
