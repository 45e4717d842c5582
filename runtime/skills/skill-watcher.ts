/**
 * Watches the skills directory (chokidar) and calls back once changes have
 * settled: copying a skill folder in is many events, one rescan. Hidden
 * entries are ignored, among them the state file and its temporary copies.
 */
import { basename, relative, sep } from 'node:path';
import chokidar, { type FSWatcher } from 'chokidar';

export class SkillWatcher {
  private watcher?: FSWatcher;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly directory: string,
    private readonly debounceMs: number,
    private readonly onChange: () => void,
  ) {}

  async start(): Promise<void> {
    if (this.watcher) return;
    const dir = this.directory;
    this.watcher = chokidar.watch(dir, {
      ignoreInitial: true,
      ignored: (path) =>
        path !== dir &&
        relative(dir, path)
          .split(sep)
          .some((segment) => segment.startsWith('.')),
      awaitWriteFinish: { stabilityThreshold: Math.min(100, this.debounceMs || 50), pollInterval: 20 },
    });
    this.watcher.on('all', (_event, path) => {
      if (basename(path).startsWith('.')) return;
      clearTimeout(this.timer);
      this.timer = setTimeout(this.onChange, this.debounceMs);
    });
    await new Promise<void>((resolve) => this.watcher!.once('ready', () => resolve()));
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    await this.watcher?.close();
    this.watcher = undefined;
  }
}
