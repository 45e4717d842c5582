/**
 * An append-only line file with size-based rotation:
 * `file` → `file.1` → `file.2` … → `file.<backupCount>`, the oldest dropped.
 * With `backupCount` 0 the file is simply restarted empty.
 *
 * Lines are never split across files; a single line larger than `maxBytes`
 * gets a file of its own. Not safe for concurrent calls: the owner (AuditLog)
 * serialises them through its single writer.
 */
import { access, mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface RotatingFileOptions {
  path: string;
  /** Rotate before a write would make the file larger than this. */
  maxBytes: number;
  /** Rotated files kept; 0 means none. */
  backupCount: number;
}

/**
 * A write failed part-way. The lines before `linesWritten` are in a file,
 * the rest are not, so the caller can retry exactly the remainder.
 */
export class RotatingFileWriteError extends Error {
  constructor(
    path: string,
    readonly linesWritten: number,
    cause: unknown,
  ) {
    super(`Writing ${path} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'RotatingFileWriteError';
  }
}

export class RotatingFile {
  private handle: FileHandle | null = null;
  /** Bytes in the current file, tracked here to avoid a stat per write. */
  private size = 0;

  constructor(private readonly opts: RotatingFileOptions) {
    if (!(opts.maxBytes > 0)) throw new RangeError('maxBytes must be positive');
    if (!Number.isInteger(opts.backupCount) || opts.backupCount < 0) {
      throw new RangeError('backupCount must be a non-negative integer');
    }
  }

  get path(): string {
    return this.opts.path;
  }

  /** Appends complete lines (each already ending in `\n`), rotating as needed. */
  async appendLines(lines: readonly string[]): Promise<void> {
    let written = 0;
    let chunk = '';
    let chunkLines = 0;
    let chunkBytes = 0;
    try {
      // Opening first gives the current size, which the rotation check needs.
      if (this.handle === null) await this.open();
      for (const line of lines) {
        const bytes = Buffer.byteLength(line);
        const pending = this.size + chunkBytes;
        if (pending > 0 && pending + bytes > this.opts.maxBytes) {
          await this.write(chunk, chunkBytes);
          written += chunkLines;
          chunk = '';
          chunkLines = 0;
          chunkBytes = 0;
          await this.rotate();
        }
        chunk += line;
        chunkLines++;
        chunkBytes += bytes;
      }
      if (chunkLines > 0) await this.write(chunk, chunkBytes);
    } catch (err) {
      throw new RotatingFileWriteError(this.opts.path, written, err);
    }
  }

  async close(): Promise<void> {
    const handle = this.handle;
    this.handle = null;
    await handle?.close();
  }

  private async open(truncate = false): Promise<FileHandle> {
    await mkdir(dirname(this.opts.path), { recursive: true });
    const handle = await open(this.opts.path, truncate ? 'w' : 'a');
    this.size = truncate ? 0 : (await handle.stat()).size;
    this.handle = handle;
    return handle;
  }

  private async write(chunk: string, bytes: number): Promise<void> {
    if (bytes === 0) return;
    const handle = this.handle ?? (await this.open());
    // appendFile loops until every byte is written, unlike a bare write().
    await handle.appendFile(chunk, 'utf8');
    this.size += bytes;
  }

  private async rotate(): Promise<void> {
    await this.close();
    const { path, backupCount } = this.opts;
    if (backupCount === 0) {
      await this.open(true);
      return;
    }
    // Only the run of backups before the first free slot has to move: the
    // slot absorbs the shift. This keeps rotation cheap with a large
    // backupCount when few backups exist yet.
    let top = 1;
    while (top < backupCount && (await exists(`${path}.${top}`))) top++;
    await rm(`${path}.${top}`, { force: true });
    // Highest first, so each rename lands on a free name.
    for (let i = top - 1; i >= 1; i--) {
      await renameIfExists(`${path}.${i}`, `${path}.${i + 1}`);
    }
    await renameIfExists(path, `${path}.1`);
    await this.open();
  }
}

async function renameIfExists(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
