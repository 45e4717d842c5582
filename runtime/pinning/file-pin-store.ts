/**
 * Pins in one JSON file (`<state>/pins.json`), readable by its owner only
 * (0600, in a 0700 folder), replaced atomically (write-file-atomic) so a
 * crash mid-write leaves the old file. A save reads the file first and
 * replaces only the backends it was given: two gateways sharing a state
 * folder keep each other's backends.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { Value } from '@sinclair/typebox/value';
import { PINS_FILE_VERSION, PinsFileSchema, type BackendPins, type PinsFile } from '../../schemas/pinning.js';
import type { PinStore } from './pin-store.js';
import { PinsUnreadableError } from '../../schemas/errors.js';

export class FilePinStore implements PinStore {
  constructor(private readonly path: string) {}

  get location(): string {
    return this.path;
  }

  async load(): Promise<Record<string, BackendPins>> {
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
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  }
}
