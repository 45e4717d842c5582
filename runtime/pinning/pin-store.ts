/**
 * Where pins live between runs. The file store (file-pin-store.ts) keeps
 * them in `<state>/pins.json`; the store replicas share when sessions live
 * in Redis (runtime/cluster/redis-pin-store.ts) implements the same calls,
 * one record per backend, and tells of what other replicas saved.
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
  /**
   * Only a store shared by running gateways: calls `changed` with the
   * backends another gateway saved, or with nothing when any may have
   * changed unheard (the store was out of reach a while, or is reachable
   * for the first time). Resolves once listening, which for a store out of
   * reach is when it is back; the returned function stops it.
   */
  watch?(changed: (backends?: string[]) => void): Promise<() => void>;
  /** Only a store that may be out of reach: whether it can be read now (after its first connection attempt). */
  reachable?(): Promise<boolean>;
}
