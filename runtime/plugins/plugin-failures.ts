/**
 * How a plugin fails besides throwing on its own, and what the audit record
 * and the log call each (`reason`): it took longer than `timeout_s`, it did
 * not load, or the worker its hook ran in ended under it.
 */
import { HookTimeout } from './timeout.js';

/** The failure of a plugin that did not load, each time it would have run (execution mode `enforce`). */
export class PluginNotLoadedError extends Error {
  constructor(why: string) {
    super(`it did not load: ${why}`);
  }
}

/** A hook of a plugin of your own whose worker ended before it answered (another hook overran, the worker exited). */
export class PluginWorkerEndedError extends Error {
  constructor(why: string) {
    super(`its worker ended before the hook answered: ${why}`);
  }
}

export type FailureReason = 'timeout' | 'not_loaded' | 'worker_ended' | 'threw';

export function failureReason(err: unknown): FailureReason {
  if (err instanceof HookTimeout) return 'timeout';
  if (err instanceof PluginNotLoadedError) return 'not_loaded';
  if (err instanceof PluginWorkerEndedError) return 'worker_ended';
  return 'threw';
}
