/**
 * Watches the config file and calls back, debounced, after edits settle.
 * Editors often write a file in several steps (truncate, write, rename); the
 * debounce turns that into one reload.
 */
import { DebouncedWatcher } from '../../runtime/files/debounced-watcher.js';
import type { Logger } from '../../runtime/observability/logging/logger.js';

export class ConfigWatcher extends DebouncedWatcher {
  constructor(file: string, debounceMs: number, log: Logger, onChange: () => void) {
    super(file, {
      debounceMs,
      onChange,
      onError: (err) => log.warn({ err, file }, `watching the config file failed, edits may go unnoticed: ${err.message}`),
      // Removing the file is no reload: the config in force stays until a file is back.
      accept: (event) => event === 'add' || event === 'change',
      // Editors that replace the file (write to temp + rename) would otherwise end the watch.
      // Links are followed (the default): a config file is often a link (a mounted ConfigMap, a dotfiles checkout).
      chokidar: { atomic: true },
    });
  }
}
