/**
 * The skills of one directory: loads every folder, keeps each skill's status
 * (state file), rescans on change (watcher, with hot reload), and offers what
 * the routing layer serves for the enabled ones:
 * - `catalog()`: workflow tools `<skill>_<workflow>` and `skill://` resources;
 * - `onChange()`: told after anything in the catalog changed;
 * - `callTool()` runs a workflow, each step through the injected StepCaller;
 * - `readResource()` reads a skill file.
 * A broken folder is listed nowhere and logged once per distinct reason.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Resource, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../observability/logging/logger.js';
import type { JsonObject } from '../routing/caller.js';
import type { SkillRecord } from '../../schemas/api.js';
import { GatewayError, ResourceNotFoundError, SkillNotFoundError, ToolNotFoundError } from '../../schemas/errors.js';
import { loadSkill, SkillLoadError, type LoadedSkill } from './skill-loader.js';
import { SkillStateStore, type SkillStatus } from './skill-state-file.js';
import { SkillWatcher } from './skill-watcher.js';
import { readSkillFile, toResource, type SkillFile } from './skill-resources.js';
import type { CompiledWorkflow } from './workflow-compiler.js';
import { errorResult, runWorkflow, WORKFLOW_OUTPUT_SCHEMA, type RunOptions, type StepCaller } from './workflow-runner.js';

export type { StepCaller, StepContext, RunOptions } from './workflow-runner.js';
export type { SkillStatus } from './skill-state-file.js';

export interface SkillSettings {
  directory: string;
  defaultStatus: SkillStatus;
  /** Rescan when the directory changes (feature_flags.hot_reload). */
  watch: boolean;
  debounceMs: number;
}

export interface SkillManagerOptions extends SkillSettings {
  logger: Logger;
  /** Calls one gateway tool for a workflow step. */
  callStep: StepCaller;
  /** Whether the gateway exposes this tool now (for `missing_tools`). */
  toolAvailable: (name: string) => boolean;
}

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

/** Workflows calling workflows: a cycle, or nesting beyond this, answers an error instead of running away. */
const MAX_NESTING = 8;
/** The workflow tools running in the current async context (outermost first). */
const running = new AsyncLocalStorage<string[]>();

interface ServedTool {
  skill: LoadedSkill;
  workflow: CompiledWorkflow;
}

export class SkillManager {
  state: 'starting' | 'ready' | 'stopped' = 'starting';
  private settings: SkillSettings;
  private store: SkillStateStore;
  private watcher?: SkillWatcher;
  private skills = new Map<string, LoadedSkill>();
  /** Last reason logged per folder (or folder/workflow), so each is logged once. */
  private readonly problems = new Map<string, string>();
  private tools = new Map<string, ServedTool>();
  private resources = new Map<string, SkillFile>();
  private lists: SkillCatalog = { tools: [], resources: [] };
  private readonly listeners = new Set<(change: SkillChange) => void>();
  private scanning?: Promise<void>;
  private rescanAgain = false;
  private readonly log: Logger;

  constructor(private readonly opts: SkillManagerOptions) {
    this.settings = { directory: opts.directory, defaultStatus: opts.defaultStatus, watch: opts.watch, debounceMs: opts.debounceMs };
    this.store = new SkillStateStore(opts.directory);
    this.log = opts.logger.child({ component: 'skills' });
  }

  get directory(): string {
    return this.settings.directory;
  }

  async start(): Promise<void> {
    this.state = 'starting';
    await this.loadState();
    await this.rescan();
    await this.syncWatcher();
    this.state = 'ready';
  }

  /** Applies changed settings (a config reload): another directory is a fresh start. */
  async configure(next: SkillSettings): Promise<void> {
    const prev = this.settings;
    this.settings = next;
    if (next.directory !== prev.directory) {
      await this.watcher?.stop();
      this.watcher = undefined;
      this.store = new SkillStateStore(next.directory);
      this.skills = new Map();
      await this.start();
      return;
    }
    if (next.debounceMs !== prev.debounceMs && this.watcher) {
      await this.watcher.stop();
      this.watcher = undefined;
    }
    await this.syncWatcher();
    if (next.defaultStatus !== prev.defaultStatus) this.rebuild();
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    await this.watcher?.stop();
    this.watcher = undefined;
  }

  /** Told after every change of the served catalog (enable, disable, rescan). */
  onChange(listener: (change: SkillChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Re-reads every skill folder; concurrent calls share one scan plus at most one more. */
  rescan(): Promise<void> {
    if (this.scanning) {
      this.rescanAgain = true;
      return this.scanning;
    }
    this.scanning = (async () => {
      do {
        this.rescanAgain = false;
        this.skills = await this.loadAll();
        this.rebuild();
      } while (this.rescanAgain);
    })().finally(() => (this.scanning = undefined));
    return this.scanning;
  }

  // --- management API ---

  records(): SkillRecord[] {
    this.requireReady();
    return [...this.skills.values()].map((s) => this.toRecord(s));
  }

  async setStatus(name: string, status: SkillStatus): Promise<{ name: string; action: SkillStatus; ok: boolean }> {
    this.requireReady();
    if (!this.skills.has(name)) throw new SkillNotFoundError(name);
    if (this.statusOf(name) !== status || this.store.get(name) === undefined) {
      try {
        await this.store.set(name, status);
      } catch (err) {
        throw new GatewayError('internal_error', `Could not save the skill state to ${this.store.path}: ${(err as Error).message}`, { skill: name });
      }
      this.log.info({ skill: name, status }, `skill ${name} ${status}`);
      this.rebuild();
    }
    return { name, action: status, ok: true };
  }

  // --- what the routing layer serves ---

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

  servesTool(name: string): boolean {
    return this.tools.has(name);
  }

  servesResource(uri: string): boolean {
    return this.resources.has(uri);
  }

  /** Runs the workflow behind an exposed tool name; the answer is CallToolResult JSON (`isError` on failure). */
  async callTool(name: string, args: JsonObject = {}, opts: RunOptions = {}): Promise<JsonObject> {
    const served = this.tools.get(name);
    if (!served) throw new ToolNotFoundError(name);
    const { skill, workflow } = served;
    const missing = this.missingTools(skill, workflow);
    if (missing.length > 0) {
      return errorResult(
        `Workflow '${name}' cannot run: the gateway offers no tool ${missing.map((t) => `'${t}'`).join(', ')} (required by skill '${skill.name}')`,
        { missing_tools: missing },
      );
    }
    const stack = running.getStore() ?? [];
    if (stack.includes(name) || stack.length >= MAX_NESTING) {
      return errorResult(`Workflow '${name}' not started: workflows call each other too deep or in a cycle (${[...stack, name].join(' → ')})`, {});
    }
    return running.run([...stack, name], () => runWorkflow(skill.name, workflow, args, this.opts.callStep, opts));
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

  // --- internals ---

  private requireReady(): void {
    if (this.state !== 'ready') throw new GatewayError('skills_unavailable', `The skill manager is ${this.state === 'starting' ? 'starting' : 'stopped'}`);
  }

  private statusOf(name: string): SkillStatus {
    return this.store.get(name) ?? this.settings.defaultStatus;
  }

  private async loadState(): Promise<void> {
    try {
      await this.store.load();
    } catch (err) {
      this.log.error({ err, file: this.store.path }, `skill state file unreadable, every skill starts as ${this.settings.defaultStatus}`);
    }
  }

  private async loadAll(): Promise<Map<string, LoadedSkill>> {
    const dir = this.settings.directory;
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      // No folder is the usual case (no skills): say so quietly; anything else is worth a warning.
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      this.problemOnce(
        '(directory)',
        missing ? `no skills: ${dir} does not exist` : `skills directory ${dir} cannot be read: ${(err as Error).message}`,
        missing ? 'debug' : 'warn',
      );
      return new Map();
    }
    this.problems.delete('(directory)');
    const folders = entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).sort((a, b) => a.name.localeCompare(b.name));
    const loaded = await Promise.all(
      folders.map(async (entry) => {
        try {
          return await loadSkill(join(dir, entry.name), entry.name);
        } catch (err) {
          if (!(err instanceof SkillLoadError)) this.log.debug({ err }, 'unexpected skill load failure');
          this.problemOnce(entry.name, `skill '${entry.name}' not loaded: ${(err as Error).message}`);
          return undefined;
        }
      }),
    );
    const skills = new Map<string, LoadedSkill>();
    for (const skill of loaded) {
      if (!skill) continue;
      skills.set(skill.name, skill);
      if (this.problems.delete(skill.name) || !this.skills.has(skill.name)) {
        this.log.info({ skill: skill.name, workflows: skill.workflows.length, files: skill.files.length }, `skill ${skill.name} loaded`);
      }
      for (const { workflow, message } of skill.workflowErrors) {
        this.problemOnce(`${skill.name}/${workflow}`, `workflow '${workflow}' of skill '${skill.name}' is not served: ${message}`);
      }
    }
    for (const name of this.skills.keys()) if (!skills.has(name)) this.log.info({ skill: name }, `skill ${name} is gone`);
    // Forget reasons of folders that are gone or fixed, so a new breakage is logged again.
    for (const key of this.problems.keys()) {
      const [folder, workflow] = key.split('/');
      if (folder === '(directory)') continue;
      const skill = skills.get(folder);
      const stillBroken =
        workflow === undefined ? !skill && folders.some((f) => f.name === folder) : skill?.workflowErrors.some((w) => w.workflow === workflow);
      if (!stillBroken) this.problems.delete(key);
    }
    return skills;
  }

  private problemOnce(key: string, message: string, level: 'warn' | 'info' | 'debug' = 'warn'): void {
    if (this.problems.get(key) === message) return;
    this.problems.set(key, message);
    this.log[level](message);
  }

  /** Rebuilds the served catalog from the enabled skills and tells listeners what changed. */
  private rebuild(): void {
    const tools = new Map<string, ServedTool>();
    const resources = new Map<string, SkillFile>();
    const lists: SkillCatalog = { tools: [], resources: [] };
    for (const skill of this.skills.values()) {
      if (this.statusOf(skill.name) !== 'enabled') continue;
      for (const workflow of skill.workflows) {
        const name = `${skill.name}_${workflow.name}`;
        const owner = tools.get(name);
        if (owner) {
          this.problemOnce(
            `${skill.name}/${workflow.name}`,
            `workflow tool '${name}' of skill '${skill.name}' is not served: skill '${owner.skill.name}' has it`,
          );
          continue;
        }
        tools.set(name, { skill, workflow });
        lists.tools.push({
          name,
          description: workflow.description || `Workflow '${workflow.name}' of skill '${skill.name}'`,
          inputSchema: workflow.inputSchema as Tool['inputSchema'],
          outputSchema: WORKFLOW_OUTPUT_SCHEMA as Tool['outputSchema'],
        });
      }
      for (const file of skill.files) {
        resources.set(file.uri, file);
        lists.resources.push(toResource(skill.name, file, file.relative === 'SKILL.md' ? skill.description : undefined));
      }
    }
    const change: SkillChange = {
      tools: JSON.stringify(lists.tools) !== JSON.stringify(this.lists.tools),
      resources: JSON.stringify(lists.resources) !== JSON.stringify(this.lists.resources),
      updatedUris: [...resources.values()]
        .filter((f) => {
          const before = this.resources.get(f.uri);
          return before !== undefined && (before.mtimeMs !== f.mtimeMs || before.size !== f.size);
        })
        .map((f) => f.uri),
    };
    this.tools = tools;
    this.resources = resources;
    this.lists = lists;
    if (!change.tools && !change.resources && change.updatedUris.length === 0) return;
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (err) {
        this.log.error({ err }, 'skill change listener failed');
      }
    }
  }

  private async syncWatcher(): Promise<void> {
    const { watch, directory, debounceMs } = this.settings;
    if (watch && !this.watcher) {
      // chokidar cannot watch a directory that does not exist yet.
      await mkdir(directory, { recursive: true }).catch((err: Error) => this.log.warn({ err }, `cannot create skills directory ${directory}`));
      this.watcher = new SkillWatcher(directory, debounceMs, () => {
        void this.rescan().catch((err) => this.log.error({ err }, 'skills rescan failed'));
      });
      await this.watcher.start();
    } else if (!watch && this.watcher) {
      await this.watcher.stop();
      this.watcher = undefined;
    }
  }

  private requiredTools(skill: LoadedSkill): string[] {
    return [...new Set([...skill.declaredTools, ...skill.workflows.flatMap((w) => w.tools)])].sort();
  }

  private missingTools(skill: LoadedSkill, workflow?: CompiledWorkflow): string[] {
    const needed = workflow ? new Set([...skill.declaredTools, ...workflow.tools]) : this.requiredTools(skill);
    return [...needed].filter((t) => !this.opts.toolAvailable(t)).sort();
  }

  private toRecord(skill: LoadedSkill): SkillRecord {
    return {
      name: skill.name,
      version: skill.version,
      description: skill.description,
      status: this.statusOf(skill.name),
      tools: skill.declaredTools.length,
      workflows: skill.workflows.length,
      author: skill.author,
      required_tools: this.requiredTools(skill),
      missing_tools: this.missingTools(skill),
      workflow_errors: skill.workflowErrors,
    };
  }
}
