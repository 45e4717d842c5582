/**
 * The skills of one directory, put together: the loaded skills and their
 * status (LoadedSkills), what is served of the enabled ones (ServedSkills),
 * the workflow runs (WorkflowHost), and, with hot reload, a watcher that
 * rescans on change. This class owns their life (start, settings from a
 * config reload, stop); everything else it passes on.
 */
import type { Logger } from '../observability/logging/logger.js';
import type { JsonObject } from '../routing/caller.js';
import type { SkillRecord } from '../../schemas/api.js';
import { GatewayError } from '../../schemas/errors.js';
import { LoadedSkills } from './loaded-skills.js';
import { ServedSkills, type SkillCatalog, type SkillChange } from './served-skills.js';
import { SkillProblems } from './skill-problems.js';
import type { SkillSettings } from './skill-settings.js';
import type { SkillStatus } from './skill-state-file.js';
import { SkillWatcher } from './skill-watcher.js';
import { WorkflowHost } from './workflow-host.js';
import type { RunOptions, StepCaller } from './workflow-runner.js';

export type { StepCaller, StepContext, RunOptions } from './workflow-runner.js';
export type { SkillStatus } from './skill-state-file.js';
export type { SkillCatalog, SkillChange } from './served-skills.js';
export type { SkillSettings } from './skill-settings.js';

export interface SkillManagerOptions extends SkillSettings {
  logger: Logger;
  /** Calls one gateway tool for a workflow step. */
  callStep: StepCaller;
  /** Whether the gateway exposes this tool now (for `missing_tools`). */
  toolAvailable: (name: string) => boolean;
}

export class SkillManager {
  state: 'starting' | 'ready' | 'stopped' = 'starting';
  private settings: SkillSettings;
  private loaded: LoadedSkills;
  private readonly served: ServedSkills;
  private readonly workflows: WorkflowHost;
  private readonly problems: SkillProblems;
  private watcher?: SkillWatcher;
  private scanning?: Promise<void>;
  private rescanAgain = false;
  private readonly log: Logger;

  constructor(private readonly opts: SkillManagerOptions) {
    this.settings = { directory: opts.directory, defaultStatus: opts.defaultStatus, watch: opts.watch, debounceMs: opts.debounceMs };
    this.log = opts.logger.child({ component: 'skills' });
    this.problems = new SkillProblems(this.log);
    this.loaded = this.loadedSkillsOf(this.settings);
    this.served = new ServedSkills(this.problems, this.log);
    this.workflows = new WorkflowHost((tool) => this.served.workflow(tool), opts.callStep, opts.toolAvailable);
  }

  get directory(): string {
    return this.settings.directory;
  }

  async start(): Promise<void> {
    this.state = 'starting';
    await this.loaded.loadState();
    await this.rescan();
    await this.syncWatcher();
    this.state = 'ready';
  }

  /** Applies changed settings (a config reload): another directory is a fresh start. */
  async configure(next: SkillSettings): Promise<void> {
    const prev = this.settings;
    this.settings = next;
    if (next.directory !== prev.directory) {
      await this.stopWatcher();
      this.loaded = this.loadedSkillsOf(next);
      await this.start();
      return;
    }
    if (next.debounceMs !== prev.debounceMs) await this.stopWatcher();
    await this.syncWatcher();
    if (this.loaded.setDefaultStatus(next.defaultStatus)) this.served.update(this.loaded.enabled());
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    await this.stopWatcher();
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
        await this.loaded.scan();
        this.served.update(this.loaded.enabled());
      } while (this.rescanAgain);
    })().finally(() => (this.scanning = undefined));
    return this.scanning;
  }

  // --- management API ---

  records(): SkillRecord[] {
    this.requireReady();
    return this.loaded.records();
  }

  async setStatus(name: string, status: SkillStatus): Promise<{ name: string; action: SkillStatus; ok: boolean }> {
    this.requireReady();
    if (await this.loaded.setStatus(name, status)) this.served.update(this.loaded.enabled());
    return { name, action: status, ok: true };
  }

  // --- what the routing layer serves ---

  /** Told after every change of the served catalog (enable, disable, rescan). */
  onChange(listener: (change: SkillChange) => void): () => void {
    return this.served.onChange(listener);
  }

  catalog(): SkillCatalog {
    return this.served.catalog();
  }

  catalogsBySkill(): Map<string, SkillCatalog> {
    return this.served.catalogsBySkill();
  }

  servesTool(name: string): boolean {
    return this.served.workflow(name) !== undefined;
  }

  servesResource(uri: string): boolean {
    return this.served.servesResource(uri);
  }

  callTool(name: string, args: JsonObject = {}, opts: RunOptions = {}): Promise<JsonObject> {
    return this.workflows.callTool(name, args, opts);
  }

  readResource(uri: string): Promise<JsonObject> {
    return this.served.readResource(uri);
  }

  // --- internals ---

  private loadedSkillsOf(settings: SkillSettings): LoadedSkills {
    return new LoadedSkills(settings.directory, settings.defaultStatus, this.problems, this.log, this.opts.toolAvailable);
  }

  private requireReady(): void {
    if (this.state !== 'ready') throw new GatewayError('skills_unavailable', `The skill manager is ${this.state === 'starting' ? 'starting' : 'stopped'}`);
  }

  private async syncWatcher(): Promise<void> {
    const { watch, directory, debounceMs } = this.settings;
    if (watch && !this.watcher) {
      this.watcher = new SkillWatcher(directory, debounceMs, this.log, () => {
        void this.rescan().catch((err) => this.log.error({ err }, 'skills rescan failed'));
      });
      await this.watcher.start();
    } else if (!watch) await this.stopWatcher();
  }

  private async stopWatcher(): Promise<void> {
    await this.watcher?.stop();
    this.watcher = undefined;
  }
}
