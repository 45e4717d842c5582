/** What each plugin has done since it was loaded (GET /manage/v1/plugins). */
import type { PluginActionKind } from '../../schemas/audit-record.js';

export interface PluginCounters {
  /** Calls it ran for. */
  invocations: number;
  /** Each block: in the arguments and in the result of one call (permissive) are two. */
  blocks: number;
  /** Arguments and results it changed: redactions, truncations, cleaned markdown, a change of your own. */
  redactions: number;
  cache_hits: number;
  retries: number;
  /** Its own failures: a hook that threw or timed out, a module that did not load. */
  errors: number;
}

export const newCounters = (): PluginCounters => ({ invocations: 0, blocks: 0, redactions: 0, cache_hits: 0, retries: 0, errors: 0 });

const COUNTER_OF: Record<PluginActionKind, keyof PluginCounters> = {
  block: 'blocks',
  redact: 'redactions',
  truncate: 'redactions',
  clean: 'redactions',
  modify: 'redactions',
  cache_hit: 'cache_hits',
  retry: 'retries',
  error: 'errors',
};

export function count(counters: PluginCounters, action: PluginActionKind): void {
  counters[COUNTER_OF[action]]++;
}
