/**
 * Watches the config file (chokidar) and calls back, debounced, after edits
 * settle. Editors often write a file in several steps (truncate, write,
 * rename); the debounce turns that into one reload.
 */
import chokidar, { type FSWatcher } from 'chokidar';

export class ConfigWatcher {
  private watcher?: FSWatcher;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly file: string,
    private readonly debounceMs: number,
    private readonly onChange: () => void,
  ) {}

  async start(): Promise<void> {
    if (this.watcher) return;
    this.watcher = chokidar.watch(this.file, {
      ignoreInitial: true,
      // Editors that replace the file (write to temp + rename) would otherwise end the watch.
      atomic: true,
      awaitWriteFinish: { stabilityThreshold: Math.min(100, this.debounceMs || 50), pollInterval: 20 },
    });
    this.watcher.on('all', (event) => {
      if (event === 'add' || event === 'change') this.schedule();
    });
    await new Promise<void>((resolve) => this.watcher!.once('ready', () => resolve()));
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(this.onChange, this.debounceMs);
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    await this.watcher?.close();
    this.watcher = undefined;
  }
}
