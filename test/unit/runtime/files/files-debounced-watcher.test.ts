/**
 * The debounced watcher the config and skills watchers share, on a real
 * directory. chokidar reports a link loop it followed (its default) as an
 * `error` event, which ended the process while nobody listened: the error
 * must reach `onError`, and the watch must go on reporting changes.
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DebouncedWatcher } from '../../../../runtime/files/debounced-watcher.js';
import { waitFor } from '../../../helpers/wait.js';

const watchers: DebouncedWatcher[] = [];
afterEach(async () => {
  await Promise.all(watchers.splice(0).map((w) => w.stop()));
});

describe('DebouncedWatcher', () => {
  it('hands a watch error to onError and keeps reporting changes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-watch-'));
    mkdirSync(join(dir, 'x'));
    symlinkSync('..', join(dir, 'x', 'loop'));
    const errors: NodeJS.ErrnoException[] = [];
    let changes = 0;
    const watcher = new DebouncedWatcher(dir, { debounceMs: 20, onChange: () => changes++, onError: (err) => errors.push(err) });
    watchers.push(watcher);
    await watcher.start();
    await waitFor(() => errors.some((e) => e.code === 'ELOOP'), 'the link loop reported to onError');

    writeFileSync(join(dir, 'after.txt'), 'written after the error');
    await waitFor(() => changes > 0, 'a change reported after the error');
  });

  it('reports only the events its accept filter takes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-watch-'));
    const seen: string[] = [];
    const errors: Error[] = [];
    let changes = 0;
    const watcher = new DebouncedWatcher(dir, {
      debounceMs: 20,
      onChange: () => changes++,
      onError: (err) => errors.push(err),
      accept: (event, path) => {
        seen.push(`${event} ${path}`);
        return path.endsWith('.yaml');
      },
    });
    watchers.push(watcher);
    await watcher.start();
    writeFileSync(join(dir, 'ignored.txt'), 'x');
    await waitFor(() => seen.some((s) => s.endsWith('ignored.txt')), 'the event of the file the filter refuses');
    expect(changes).toBe(0);
    writeFileSync(join(dir, 'config.yaml'), 'x: 1');
    await waitFor(() => changes > 0, 'the change the filter takes');
    expect(errors).toEqual([]);
  });
});
