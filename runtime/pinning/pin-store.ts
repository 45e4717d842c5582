/**
 * Where pins live between runs. The file store (file-pin-store.ts) keeps
 * them in `<state>/pins.json`; a store shared by replicas (Redis, once
 * sessions live there) implements the same two calls, one record per backend.
 */
import type { BackendPins } from '../../schemas/pinning.js';

export interface PinStore {
  /** Where the pins are, for logs and errors (a path, a key prefix). */
  readonly location: string;
  /** Every backend's pins; nothing stored yet is an empty record. Throws when what is stored cannot be read as pins. */
  load(): Promise<Record<string, BackendPins>>;
  /**
   * Replaces the records of these backends and leaves the others as they
   * are (another gateway sharing the store may have written them). Calls
   * are made one at a time.
   */
  save(backends: Record<string, BackendPins>): Promise<void>;
}
