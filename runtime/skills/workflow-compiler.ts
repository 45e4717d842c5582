/**
 * Checks a workflow once, at load, so a bad one is never served: duplicate
 * step ids, unknown dependencies, cycles, references to steps that may not
 * have finished yet, inputs the schema does not declare, and an input schema
 * that is not valid JSON Schema. The result holds what a run needs.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { WorkflowSpec } from '../../schemas/skill-files.js';
import type { JsonObject } from '../routing/caller.js';
import { referencesIn } from './step-templates.js';

export interface CompiledStep {
  id: string;
  tool: string;
  arguments: JsonObject;
  dependsOn: string[];
}

export interface CompiledWorkflow {
  name: string;
  description: string;
  inputSchema: JsonObject;
  validateInputs: ValidateFunction;
  steps: CompiledStep[];
  /** Ids of the steps nothing depends on, in declaration order: their text is the result. */
  terminal: string[];
  /** The gateway tools the steps call. */
  tools: string[];
}

// MCP's default dialect for tool schemas is JSON Schema 2020-12; strict off, as tools often carry extra keywords.
const ajv = new Ajv2020({ allErrors: true, strict: false });

const EMPTY_INPUTS: JsonObject = { type: 'object', properties: {} };

/** Throws an Error whose message names the workflow's problem. */
export function compileWorkflow(spec: WorkflowSpec): CompiledWorkflow {
  const steps = spec.steps.map((s) => ({ id: s.id, tool: s.tool, arguments: (s.arguments ?? {}) as JsonObject, dependsOn: [...new Set(s.depends_on ?? [])] }));
  const byId = new Map<string, CompiledStep>();
  for (const step of steps) {
    if (byId.has(step.id)) throw new Error(`two steps have the id '${step.id}'`);
    byId.set(step.id, step);
  }
  for (const step of steps) {
    for (const dep of step.dependsOn) {
      if (!byId.has(dep)) throw new Error(`step '${step.id}' depends on unknown step '${dep}'`);
    }
  }
  const cycle = findCycle(steps, byId);
  if (cycle) throw new Error(`dependency cycle: ${cycle.join(' → ')} (each step depends on the next)`);

  const inputSchema = (spec.input_schema as JsonObject | undefined) ?? EMPTY_INPUTS;
  let validateInputs: ValidateFunction;
  try {
    validateInputs = ajv.compile(inputSchema);
  } catch (err) {
    throw new Error(`input_schema is not a valid JSON Schema: ${(err as Error).message}`, { cause: err });
  }
  const declared = inputSchema.properties && typeof inputSchema.properties === 'object' ? new Set(Object.keys(inputSchema.properties)) : undefined;

  for (const step of steps) {
    let refs;
    try {
      refs = referencesIn(step.arguments);
    } catch (err) {
      throw new Error(`step '${step.id}': ${(err as Error).message}`, { cause: err });
    }
    const before = ancestors(step, byId);
    for (const ref of refs) {
      if (ref.kind === 'step') {
        if (!byId.has(ref.id)) throw new Error(`step '${step.id}' uses {{steps.${ref.id}.text}}, but there is no step '${ref.id}'`);
        if (!before.has(ref.id)) {
          throw new Error(`step '${step.id}' uses {{steps.${ref.id}.text}} but does not depend on '${ref.id}' (directly or through other steps)`);
        }
      } else if (declared && !declared.has(ref.path[0])) {
        throw new Error(`step '${step.id}' uses {{inputs.${ref.path.join('.')}}}, but input_schema declares no property '${ref.path[0]}'`);
      }
    }
  }

  const needed = new Set(steps.flatMap((s) => s.dependsOn));
  return {
    name: spec.name,
    description: spec.description ?? '',
    inputSchema,
    validateInputs,
    steps,
    terminal: steps.filter((s) => !needed.has(s.id)).map((s) => s.id),
    tools: [...new Set(steps.map((s) => s.tool))],
  };
}

/** Depth-first search; returns the ids along one cycle (first id repeated at the end), if any. */
function findCycle(steps: CompiledStep[], byId: Map<string, CompiledStep>): string[] | undefined {
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === 'done') return undefined;
    if (state.get(id) === 'visiting') return [...path.slice(path.indexOf(id)), id];
    state.set(id, 'visiting');
    path.push(id);
    for (const dep of byId.get(id)!.dependsOn) {
      const found = visit(dep);
      if (found) return found;
    }
    path.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const step of steps) {
    const found = visit(step.id);
    if (found) return found;
  }
  return undefined;
}

function ancestors(step: CompiledStep, byId: Map<string, CompiledStep>): Set<string> {
  const seen = new Set<string>();
  const stack = [...step.dependsOn];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...byId.get(id)!.dependsOn);
  }
  return seen;
}
