/**
 * One chokidar watch whose events, once they settle, become one callback:
 * an editor's save or a folder copied in is many events and must be one
 * reload. Each user brings its own chokidar options (atomic saves for a
 * file, ignored entries and links for a directory).
 *
 * chokidar reports trouble (a link loop, a folder it may not read, no watch
 * handles left) as an `error` event, and an EventEmitter with no `error`
 * listener throws, which ends the process: every watch here hands its errors
 * to `onError` instead, and keeps watching what it still can.
 */
import chokidar, { type ChokidarOptions, type FSWatcher } from 'chokidar';

export interface DebouncedWatchOptions {
  /** Quiet time after the last event before `onChange` runs. */
  debounceMs: number;
  onChange: () => void;
  /** Told about every watch error; the watch goes on. */
  onError: (err: Error) => void;
  /** Which events count (default: every one). */
  accept?: (event: string, path: string) => boolean;
  /** This watch's own chokidar options. */
  chokidar?: ChokidarOptions;
}

export class DebouncedWatcher {
  private watcher?: FSWatcher;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly path: string,
    private readonly opts: DebouncedWatchOptions,
  ) {}

  /** Resolves once the initial scan is done, so a change made after it is seen. */
  async start(): Promise<void> {
    if (this.watcher) return;
    const { debounceMs, accept, onError } = this.opts;
    const watcher = chokidar.watch(this.path, {
      ignoreInitial: true,
      // A file still being written is reported once, when its size holds still.
      awaitWriteFinish: { stabilityThreshold: Math.min(100, debounceMs || 50), pollInterval: 20 },
      ...this.opts.chokidar,
    });
    this.watcher = watcher;
    watcher.on('error', (err) => onError(err instanceof Error ? err : new Error(String(err))));
    watcher.on('all', (event, path) => {
      if (accept && !accept(event, path)) return;
      clearTimeout(this.timer);
      this.timer = setTimeout(this.opts.onChange, debounceMs);
    });
    await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    await this.watcher?.close();
    this.watcher = undefined;
  }
}
