/**
 * The skills found in one skills directory and the status of each: the one
 * set through the API (kept in the state file), else `skills.default_status`.
 * This is what the management API lists and changes.
 */
import type { Logger } from '../observability/logging/logger.js';
import type { SkillRecord } from '../../schemas/api.js';
import { GatewayError, SkillNotFoundError } from '../../schemas/errors.js';
import { loadSkillDirectory } from './skill-directory-loader.js';
import type { LoadedSkill } from './skill-loader.js';
import type { SkillProblems } from './skill-problems.js';
import { missingTools, requiredTools, type ToolAvailable } from './skill-requirements.js';
import { SkillStateStore, type SkillStatus } from './skill-state-file.js';

export class LoadedSkills {
  private skills = new Map<string, LoadedSkill>();
  private readonly store: SkillStateStore;

  constructor(
    readonly directory: string,
    private defaultStatus: SkillStatus,
    private readonly problems: SkillProblems,
    private readonly log: Logger,
    private readonly toolAvailable: ToolAvailable,
  ) {
    this.store = new SkillStateStore(directory);
  }

  /** Reads the state file; an unreadable one is logged, and every skill follows the default until a status is set. */
  async loadState(): Promise<void> {
    try {
      await this.store.load();
    } catch (err) {
      this.log.error({ err, file: this.store.path }, `skill state file unreadable, every skill starts as ${this.defaultStatus}`);
    }
  }

  /** Re-reads every skill folder. */
  async scan(): Promise<void> {
    this.skills = await loadSkillDirectory(this.directory, this.skills, this.problems, this.log);
  }

  /** True when the default changed (the enabled set may have). */
  setDefaultStatus(status: SkillStatus): boolean {
    const changed = status !== this.defaultStatus;
    this.defaultStatus = status;
    return changed;
  }

  enabled(): LoadedSkill[] {
    return [...this.skills.values()].filter((s) => this.statusOf(s.name) === 'enabled');
  }

  records(): SkillRecord[] {
    return [...this.skills.values()].map((s) => this.toRecord(s));
  }

  /**
   * Sets and saves a skill's status. True when it was saved: the status
   * changed, or the skill had none of its own yet (so a later change of the
   * default leaves it as the operator set it).
   */
  async setStatus(name: string, status: SkillStatus): Promise<boolean> {
    if (!this.skills.has(name)) throw new SkillNotFoundError(name);
    if (this.statusOf(name) === status && this.store.get(name) !== undefined) return false;
    try {
      await this.store.set(name, status);
    } catch (err) {
      throw new GatewayError('internal_error', `Could not save the skill state to ${this.store.path}: ${(err as Error).message}`, { skill: name });
    }
    this.log.info({ skill: name, status }, `skill ${name} ${status}`);
    return true;
  }

  private statusOf(name: string): SkillStatus {
    return this.store.get(name) ?? this.defaultStatus;
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
      required_tools: requiredTools(skill),
      missing_tools: missingTools(skill, this.toolAvailable),
      workflow_errors: skill.workflowErrors,
    };
  }
}
