/**
 * Definition pins shared by the replicas (`sessions.store: redis`), over
 * the cluster's own connections: one hash (`<prefix>:pins`), one field per
 * backend holding its record as JSON, so a save replaces just the backends
 * it names (HSET of several fields is atomic). A save is then announced on
 * `<prefix>:pins-changed`, and the other replicas read those backends
 * again. Pub/sub rather than re-reading: pins are consulted only when a
 * route table is built, so nothing may cost a round trip per call or a
 * poll; Redis drops what is published while a replica is disconnected, so
 * a replica reads every backend again when its connection is back. A
 * replica that starts while Redis is out of reach reads them when it is
 * first reached (runtime/pinning/definition-pins.ts).
 */
import { Value } from '@sinclair/typebox/value';
import { BackendPinsSchema, type BackendPins } from '../../schemas/pinning.js';
import { PinsUnreadableError } from '../../schemas/errors.js';
import type { PinStore } from '../pinning/pin-store.js';
import type { ClusterBus } from './cluster-bus.js';
import type { RedisConnection } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';

interface PinsChanged {
  from: string;
  backends: string[];
}

export class RedisPinStore implements PinStore {
  constructor(
    private readonly connection: RedisConnection,
    private readonly bus: ClusterBus,
    private readonly keys: RedisKeys,
    /** This replica's tag: it does not read again what it saved itself. */
    private readonly tag: string,
  ) {}

  get location(): string {
    return `redis key ${this.keys.pins}`;
  }

  async load(): Promise<Record<string, BackendPins>> {
    await this.readable();
    let fields: Record<string, string>;
    try {
      fields = await this.connection.commands.hgetall(this.keys.pins);
    } catch (err) {
      throw new PinsUnreadableError(this.location, `cannot be read (${(err as Error).message})`, err);
    }
    const backends: Record<string, BackendPins> = {};
    for (const [backend, text] of Object.entries(fields)) backends[backend] = this.parse(backend, text);
    return backends;
  }

  async save(backends: Record<string, BackendPins>): Promise<void> {
    const names = Object.keys(backends);
    if (names.length === 0) return;
    await this.connection.commands.hset(this.keys.pins, Object.fromEntries(names.map((name) => [name, JSON.stringify(backends[name])])));
    this.bus.publish(this.keys.pinsChanged, JSON.stringify({ from: this.tag, backends: names } satisfies PinsChanged));
  }

  async watch(changed: (backends?: string[]) => void): Promise<() => void> {
    const stopStatus = this.connection.onStatus((status) => {
      if (status === 'ok') changed();
    });
    const stopListening = this.bus.hold(this.keys.pinsChanged, (text) => {
      const m = decode(text);
      if (m && m.from !== this.tag) changed(m.backends);
    });
    await this.bus.whenSubscribed(this.keys.pinsChanged);
    return () => {
      stopListening();
      stopStatus();
    };
  }

  async reachable(): Promise<boolean> {
    await this.connection.connect();
    return this.connection.status === 'ok';
  }

  /** What cannot be reached cannot be read: an error that says so rather than a Redis error. */
  private async readable(): Promise<void> {
    if (!(await this.reachable())) throw new PinsUnreadableError(this.location, `cannot be read: Redis is out of reach (${this.connection.reason})`);
  }

  private parse(backend: string, text: string): BackendPins {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (err) {
      throw new PinsUnreadableError(this.location, `field ${backend} is not valid JSON (${(err as Error).message})`, err);
    }
    if (!Value.Check(BackendPinsSchema, data)) {
      const first = Value.Errors(BackendPinsSchema, data).First();
      throw new PinsUnreadableError(
        this.location,
        `field ${backend} is not a backend's pins (${first ? `${first.path || '/'}: ${first.message}` : 'unexpected shape'})`,
      );
    }
    return data;
  }
}

/** A message from the pins channel, or undefined for anything else. */
function decode(text: string): PinsChanged | undefined {
  try {
    const m = JSON.parse(text) as Partial<PinsChanged>;
    return typeof m.from === 'string' && Array.isArray(m.backends) && m.backends.every((b) => typeof b === 'string') ? (m as PinsChanged) : undefined;
  } catch {
    return undefined;
  }
}
