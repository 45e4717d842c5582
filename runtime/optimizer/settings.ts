/** The optimizer's settings as the running config gives them (`optimizer`, `feature_flags.optimizer`). */
import type { GatewayConfig } from '../../schemas/config.js';

export interface OptimizerSettings {
  enabled: boolean;
  /** Globs over exposed tool names still listed as themselves. */
  keepTools: readonly string[];
  /** find_tool's limit when the caller gives none. */
  maxResults: number;
}

export function optimizerSettingsOf(config: GatewayConfig): OptimizerSettings {
  return {
    // The flag turns it on with the section's settings (their defaults when the section is absent).
    enabled: config.optimizer.enabled || config.feature_flags.optimizer,
    keepTools: config.optimizer.keep_tools,
    maxResults: config.optimizer.max_results,
  };
}
