/**
 * Runs the workflow behind a served tool name. Refuses, with an `isError`
 * result and no step called, a workflow whose tools the gateway lacks, and
 * one started from inside itself (directly or through other workflows) or
 * nested deeper than MAX_NESTING: a step may call another workflow tool, and
 * a cycle would otherwise call itself without end.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { JsonObject } from '../routing/caller.js';
import { ToolNotFoundError } from '../../schemas/errors.js';
import type { ServedWorkflow } from './served-skills.js';
import { missingTools, type ToolAvailable } from './skill-requirements.js';
import { errorResult, runWorkflow, type RunOptions, type StepCaller } from './workflow-runner.js';

const MAX_NESTING = 8;

export class WorkflowHost {
  /** The workflow tools running in the current async context, outermost first (steps come back through the router). */
  private readonly running = new AsyncLocalStorage<string[]>();

  constructor(
    private readonly workflowOf: (tool: string) => ServedWorkflow | undefined,
    private readonly callStep: StepCaller,
    private readonly toolAvailable: ToolAvailable,
  ) {}

  /** The answer is CallToolResult JSON (`isError` on failure); ToolNotFoundError for a name no enabled skill serves. */
  async callTool(name: string, args: JsonObject = {}, opts: RunOptions = {}): Promise<JsonObject> {
    const served = this.workflowOf(name);
    if (!served) throw new ToolNotFoundError(name);
    const { skill, workflow } = served;
    const missing = missingTools(skill, this.toolAvailable, workflow);
    if (missing.length > 0) {
      return errorResult(
        `Workflow '${name}' cannot run: the gateway offers no tool ${missing.map((t) => `'${t}'`).join(', ')} (required by skill '${skill.name}')`,
        { missing_tools: missing },
      );
    }
    const stack = this.running.getStore() ?? [];
    if (stack.includes(name) || stack.length >= MAX_NESTING) {
      return errorResult(`Workflow '${name}' not started: workflows call each other too deep or in a cycle (${[...stack, name].join(' → ')})`, {});
    }
    return this.running.run([...stack, name], () => runWorkflow(skill.name, workflow, args, this.callStep, opts));
  }
}
