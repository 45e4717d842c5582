/** The skill manager's settings from the config: one place that knows the defaults. */
import { dirname, resolve } from 'node:path';
import type { GatewayConfig } from '../../schemas/config.js';
import type { SkillSettings } from './skill-manager.js';

/** `skills.directory` is relative to the config file; by default `skills/` beside it. */
export function skillSettingsOf(config: GatewayConfig, configPath: string): SkillSettings {
  return {
    directory: resolve(dirname(configPath), config.skills.directory ?? 'skills'),
    defaultStatus: config.skills.default_status,
    watch: config.feature_flags.hot_reload,
    debounceMs: config.controller.reload_debounce_ms,
  };
}
