/**
 * Desired state derived from a validated config, and the diff between two of
 * them. The diff drives both the reconcile loop and the `POST /reload` answer.
 */
import { isDeepStrictEqual } from 'node:util';
import type { BackendSpec, GatewayConfig } from '../../schemas/config.js';
import type { ConflictPolicy } from '../../runtime/routing/route-table.js';
import type { DesiredBackends } from '../../runtime/backends/serving-backends.js';

export interface ConfigDiff {
  added: string[];
  removed: string[];
  /** Any setting differs, filters and renames included. */
  changed: string[];
}

export function diffBackends(before: GatewayConfig['backends'], after: GatewayConfig['backends']): ConfigDiff {
  const added: string[] = [];
  const removed: string[] = [];
  const changed: string[] = [];
  for (const name of Object.keys(after)) {
    if (!Object.hasOwn(before, name)) added.push(name);
    else if (!isDeepStrictEqual(before[name], after[name])) changed.push(name);
  }
  for (const name of Object.keys(before)) if (!Object.hasOwn(after, name)) removed.push(name);
  return { added, removed, changed };
}

/**
 * The settings that shape the connection itself. A change to any other key
 * (filters, renames, group, labels) is applied to the registry without
 * dropping the backend's session.
 */
export function connectionSettings(spec: BackendSpec): Omit<BackendSpec, 'filters' | 'rename' | 'group' | 'labels' | 'enabled'> {
  const { filters: _f, rename: _r, group: _g, labels: _l, enabled: _e, ...connection } = spec;
  return connection;
}

export function sameConnection(a: BackendSpec, b: BackendSpec): boolean {
  return isDeepStrictEqual(connectionSettings(a), connectionSettings(b));
}

/**
 * What the operator wants: the backends of the running config and how name
 * conflicts between them are resolved, plus manual reconnect requests. The
 * one copy of the specs: the reconciler and the route table both read it.
 *
 * A reconnect is recorded like `kubectl rollout restart` records a restart:
 * a counter per backend in desired state that the reconciler compares with
 * the last one it answered. A request that comes while a reconnect is
 * queued or running joins it instead of counting up, so fifty concurrent
 * requests cause one reconnect, not fifty, however they are spread over
 * the time the reconnect takes.
 */
export class DesiredState implements DesiredBackends {
  private backends: ReadonlyMap<string, BackendSpec>;
  private conflicts: ConflictPolicy;
  private readonly reconnects = new Map<string, number>();

  constructor(backends: GatewayConfig['backends'], conflicts: ConflictPolicy) {
    this.backends = new Map(Object.entries(backends));
    this.conflicts = conflicts;
  }

  /** Replaces the backends and the conflict policy; returns which backends changed (the answer of POST /reload). */
  set(backends: GatewayConfig['backends'], conflicts: ConflictPolicy = this.conflicts): ConfigDiff {
    const diff = diffBackends(Object.fromEntries(this.backends), backends);
    this.backends = new Map(Object.entries(backends));
    this.conflicts = conflicts;
    return diff;
  }

  get conflictPolicy(): ConflictPolicy {
    return this.conflicts;
  }

  get(name: string): BackendSpec | undefined {
    return this.backends.get(name);
  }

  names(): string[] {
    return [...this.backends.keys()];
  }

  /**
   * Asks for a fresh connection; returns the number of the reconnect the
   * request joins: the newest one while no connect attempt has answered it
   * yet (`answered`: the last number an attempt answered), else a new one.
   */
  requestReconnect(name: string, answered: number): number {
    const newest = this.reconnects.get(name) ?? 0;
    if (newest > answered) return newest;
    this.reconnects.set(name, newest + 1);
    return newest + 1;
  }

  /** The newest reconnect request for a backend (0: none). */
  reconnectRequested(name: string): number {
    return this.reconnects.get(name) ?? 0;
  }
}
