/**
 * The gateway tools a skill relies on: those its manifest names plus every
 * tool a workflow step calls. The record lists them with the ones missing
 * now, and a workflow whose tools are missing is refused before it starts.
 */
import type { LoadedSkill } from './skill-loader.js';
import type { CompiledWorkflow } from './workflow-compiler.js';

/** Whether the gateway exposes this tool now. */
export type ToolAvailable = (name: string) => boolean;

export function requiredTools(skill: LoadedSkill): string[] {
  return [...new Set([...skill.declaredTools, ...skill.workflows.flatMap((w) => w.tools)])].sort();
}

/** What the skill (or, given one, just this workflow of it) needs that the gateway does not offer now. */
export function missingTools(skill: LoadedSkill, available: ToolAvailable, workflow?: CompiledWorkflow): string[] {
  const needed = workflow ? new Set([...skill.declaredTools, ...workflow.tools]) : requiredTools(skill);
  return [...needed].filter((t) => !available(t)).sort();
}
