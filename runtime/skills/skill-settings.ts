/** The skill manager's settings from the config: one place that knows the defaults. */
import { dirname, resolve } from 'node:path';
import type { GatewayConfig } from '../../schemas/config.js';
import type { SkillStatus } from './skill-state-file.js';

export interface SkillSettings {
  directory: string;
  defaultStatus: SkillStatus;
  /** Rescan when the directory changes (feature_flags.hot_reload). */
  watch: boolean;
  debounceMs: number;
}

/** `skills.directory` is relative to the config file; by default `skills/` beside it. */
export function skillSettingsOf(config: GatewayConfig, configPath: string): SkillSettings {
  return {
    directory: resolve(dirname(configPath), config.skills.directory ?? 'skills'),
    defaultStatus: config.skills.default_status,
    watch: config.feature_flags.hot_reload,
    debounceMs: config.controller.reload_debounce_ms,
  };
}
