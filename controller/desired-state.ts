/**
 * Desired state derived from a validated config, and the diff between two of
 * them. The diff drives both the reconcile loop and the `POST /reload` answer.
 */
import { isDeepStrictEqual } from 'node:util';
import type { BackendSpec, GatewayConfig } from '../schemas/config.js';

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
