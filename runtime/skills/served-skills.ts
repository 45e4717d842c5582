/**
 * What the enabled skills offer MCP clients, as the route table takes it:
 * each workflow as the tool `<skill>_<workflow>`, each file as a `skill://`
 * resource. Rebuilt from the enabled skills after every enable, disable or
 * rescan; listeners hear what changed, so the routing layer can send the
 * list_changed and resources/updated notifications.
 */
import type { Resource, Tool } from '@modelcontextprotocol/client';
import type { Logger } from '../observability/logging/logger.js';
import type { JsonObject } from '../routing/caller.js';
import { ResourceNotFoundError } from '../../schemas/errors.js';
import type { LoadedSkill } from './skill-loader.js';
import type { SkillProblems } from './skill-problems.js';
import { readSkillFile, toResource, type SkillFile } from './skill-resources.js';
import type { CompiledWorkflow } from './workflow-compiler.js';
import { WORKFLOW_OUTPUT_SCHEMA } from './workflow-runner.js';

export interface SkillCatalog {
  tools: Tool[];
  resources: Resource[];
}

/** What changed in the served catalog: which list_changed notifications to send, and which resources were edited. */
export interface SkillChange {
  tools: boolean;
  resources: boolean;
  /** Resources still listed whose file changed (for notifications/resources/updated). */
  updatedUris: string[];
}

export interface ServedWorkflow {
  skill: LoadedSkill;
  workflow: CompiledWorkflow;
}

export class ServedSkills {
  private tools = new Map<string, ServedWorkflow>();
  private resources = new Map<string, SkillFile>();
  private lists: SkillCatalog = { tools: [], resources: [] };
  private readonly listeners = new Set<(change: SkillChange) => void>();

  constructor(
    private readonly problems: SkillProblems,
    private readonly log: Logger,
  ) {}

  onChange(listener: (change: SkillChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  catalog(): SkillCatalog {
    return this.lists;
  }

  /** The served catalog split by skill (the route table names each skill's capabilities after it). */
  catalogsBySkill(): Map<string, SkillCatalog> {
    const bySkill = new Map<string, SkillCatalog>();
    const of = (skill: string): SkillCatalog => {
      let c = bySkill.get(skill);
      if (!c) bySkill.set(skill, (c = { tools: [], resources: [] }));
      return c;
    };
    for (const tool of this.lists.tools) of(this.tools.get(tool.name)!.skill.name).tools.push(tool);
    for (const resource of this.lists.resources) of(this.resources.get(resource.uri)!.skill).resources.push(resource);
    return bySkill;
  }

  workflow(tool: string): ServedWorkflow | undefined {
    return this.tools.get(tool);
  }

  servesResource(uri: string): boolean {
    return this.resources.has(uri);
  }

  /** The `resources/read` result of a skill file. */
  async readResource(uri: string): Promise<JsonObject> {
    const file = this.resources.get(uri);
    if (!file) throw new ResourceNotFoundError(uri);
    try {
      return await readSkillFile(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new ResourceNotFoundError(uri);
      throw err;
    }
  }

  /** Serves these skills from now on, and tells listeners what changed. */
  update(enabled: Iterable<LoadedSkill>): void {
    const tools = new Map<string, ServedWorkflow>();
    const resources = new Map<string, SkillFile>();
    const lists: SkillCatalog = { tools: [], resources: [] };
    for (const skill of enabled) {
      for (const workflow of skill.workflows) {
        const name = `${skill.name}_${workflow.name}`;
        const owner = tools.get(name);
        if (owner) {
          const message = `workflow tool '${name}' of skill '${skill.name}' is not served: skill '${owner.skill.name}' has it`;
          this.problems.report(`${skill.name}/${workflow.name}`, message);
          continue;
        }
        tools.set(name, { skill, workflow });
        lists.tools.push(toTool(name, skill, workflow));
      }
      for (const file of skill.files) {
        resources.set(file.uri, file);
        lists.resources.push(toResource(skill.name, file, file.relative === 'SKILL.md' ? skill.description : undefined));
      }
    }
    const change = this.changeTo(lists, resources);
    this.tools = tools;
    this.resources = resources;
    this.lists = lists;
    if (change.tools || change.resources || change.updatedUris.length > 0) this.tell(change);
  }

  private changeTo(lists: SkillCatalog, resources: Map<string, SkillFile>): SkillChange {
    const edited = (f: SkillFile): boolean => {
      const before = this.resources.get(f.uri);
      return before !== undefined && (before.mtimeMs !== f.mtimeMs || before.size !== f.size);
    };
    return {
      tools: JSON.stringify(lists.tools) !== JSON.stringify(this.lists.tools),
      resources: JSON.stringify(lists.resources) !== JSON.stringify(this.lists.resources),
      updatedUris: [...resources.values()].filter(edited).map((f) => f.uri),
    };
  }

  private tell(change: SkillChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (err) {
        this.log.error({ err }, 'skill change listener failed');
      }
    }
  }
}

function toTool(name: string, skill: LoadedSkill, workflow: CompiledWorkflow): Tool {
  return {
    name,
    description: workflow.description || `Workflow '${workflow.name}' of skill '${skill.name}'`,
    inputSchema: workflow.inputSchema as Tool['inputSchema'],
    outputSchema: WORKFLOW_OUTPUT_SCHEMA as Tool['outputSchema'],
  };
}
