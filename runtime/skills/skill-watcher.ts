/**
 * Watches the skills directory and calls back once changes have settled:
 * copying a skill folder in is many events, one rescan. Hidden entries are
 * ignored, among them the state file and its temporary copies. Links inside
 * the directory are not followed, as the loader does not follow them either:
 * `ln -s .. skills/x/loop` would otherwise be a folder inside itself, watched
 * deeper and deeper until ELOOP.
 */
import { mkdir, realpath } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import { DebouncedWatcher } from '../files/debounced-watcher.js';
import type { Logger } from '../observability/logging/logger.js';

export class SkillWatcher {
  private watcher?: DebouncedWatcher;

  constructor(
    private readonly directory: string,
    private readonly debounceMs: number,
    private readonly log: Logger,
    private readonly onChange: () => void,
  ) {}

  async start(): Promise<void> {
    if (this.watcher) return;
    // chokidar cannot watch a directory that does not exist yet.
    await mkdir(this.directory, { recursive: true }).catch((err: Error) => this.log.warn({ err }, `cannot create skills directory ${this.directory}`));
    // The directory itself may be a link (skills -> /srv/skills); chokidar would not enter it with followSymlinks off.
    const dir = await realpath(this.directory).catch(() => this.directory);
    this.watcher = new DebouncedWatcher(dir, {
      debounceMs: this.debounceMs,
      onChange: this.onChange,
      // A folder chokidar cannot watch is that folder's problem: the other skills are still watched.
      onError: (err) => this.log.warn({ err }, `watching the skills directory ${dir}: ${err.message}`),
      chokidar: {
        followSymlinks: false,
        ignored: (path) =>
          path !== dir &&
          relative(dir, path)
            .split(sep)
            .some((segment) => segment.startsWith('.')),
      },
    });
    await this.watcher.start();
  }

  async stop(): Promise<void> {
    await this.watcher?.stop();
    this.watcher = undefined;
  }
}
