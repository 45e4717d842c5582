/**
 * Why a skill folder or workflow is not served, logged once per distinct
 * reason: a rescan runs on every edit, and repeating the same warning each
 * time would bury the one that is new. Keys are a folder name, a
 * `folder/workflow`, or `(directory)` for the skills directory itself.
 */
import type { Logger } from '../observability/logging/logger.js';

export const DIRECTORY_KEY = '(directory)';

export class SkillProblems {
  private readonly last = new Map<string, string>();

  constructor(private readonly log: Logger) {}

  /** Logs `message` unless it is what was last logged under `key`. */
  report(key: string, message: string, level: 'warn' | 'info' | 'debug' = 'warn'): void {
    if (this.last.get(key) === message) return;
    this.last.set(key, message);
    this.log[level](message);
  }

  /** Forgets the reason under `key` (fixed or gone), so a new breakage is logged again; true if there was one. */
  clear(key: string): boolean {
    return this.last.delete(key);
  }

  keys(): string[] {
    return [...this.last.keys()];
  }
}
