/**
 * Pins in one JSON file (`<state>/pins.json`), readable by its owner only
 * (0600, in a 0700 folder: an existing folder of the gateway's user is
 * tightened to 0700, one of another user is warned about), replaced
 * atomically (write-file-atomic) so a crash mid-write leaves the old file. A
 * save reads the file first and replaces only the backends it was given: two
 * gateways sharing a state folder keep each other's backends.
 */
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { Value } from '@sinclair/typebox/value';
import { PINS_FILE_VERSION, PinsFileSchema, type BackendPins, type PinsFile } from '../../schemas/pinning.js';
import type { PinStore } from './pin-store.js';
import { PinsUnreadableError } from '../../schemas/errors.js';
import { octal, privateFolder } from '../files/private-folder.js';
import type { Logger } from '../observability/logging/logger.js';

export class FilePinStore implements PinStore {
  /** The folder was looked at once it existed: told once, not on every save. */
  private folderChecked = false;

  constructor(
    private readonly path: string,
    private readonly log?: Pick<Logger, 'info' | 'warn'>,
    /** Whose folder may be tightened (tests pass another user). */
    private readonly uid?: number,
  ) {}

  get location(): string {
    return this.path;
  }

  async load(): Promise<Record<string, BackendPins>> {
    this.keepFolderPrivate(false);
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw new PinsUnreadableError(this.path, `cannot be read (${(err as Error).message})`, err);
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (err) {
      throw new PinsUnreadableError(this.path, `is not valid JSON (${(err as Error).message})`, err);
    }
    if (!Value.Check(PinsFileSchema, data)) {
      const first = Value.Errors(PinsFileSchema, data).First();
      throw new PinsUnreadableError(this.path, `is not a pins file (${first ? `${first.path || '/'}: ${first.message}` : 'unexpected shape'})`);
    }
    return data.backends;
  }

  async save(backends: Record<string, BackendPins>): Promise<void> {
    const current = await this.load();
    const file: PinsFile = { version: PINS_FILE_VERSION, backends: { ...current, ...backends } };
    this.keepFolderPrivate(true);
    await writeFileAtomic(this.path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  }

  private keepFolderPrivate(create: boolean): void {
    if (this.folderChecked && !create) return;
    const folder = dirname(this.path);
    const found = privateFolder(folder, { create, uid: this.uid });
    if (found.outcome === 'missing' || this.folderChecked) return;
    this.folderChecked = true;
    if (found.outcome === 'tightened')
      this.log?.info({ folder, was: octal(found.from) }, `made the pins folder ${folder} private (0700; it was ${octal(found.from)})`);
    if (found.outcome === 'open')
      this.log?.warn(
        { folder, mode: octal(found.mode), owner: found.owner },
        `the pins folder ${folder} is open to other users (${octal(found.mode)}) and belongs to user ${found.owner}, so the gateway cannot make it private: chmod 700 it, or set GATEWAY_STATE_DIR to a folder of your own`,
      );
  }
}
