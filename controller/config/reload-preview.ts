/**
 * What a reload would do, without doing it: a config validated and compared
 * with the running one. The console shows it before an operator reloads, and
 * while one edits a config (POST /reload with `dry_run`, POST /config/validate).
 * The backends are compared as a reload compares them (desired-state.ts);
 * the other settings by key path, two levels deep (`server.console`,
 * `authorization`), which is where a person looks for them.
 */
import { isDeepStrictEqual } from 'node:util';
import type { GatewayConfig } from '../../schemas/config.js';
import { ConfigError, type ConfigProblem } from '../../schemas/errors.js';
import { diffBackends } from './desired-state.js';

export interface ReloadPreview {
  valid: boolean;
  backends_added: string[];
  backends_removed: string[];
  backends_changed: string[];
  /** Key paths outside `backends` whose values differ. */
  settings_changed: string[];
  errors: ConfigProblem[];
}

export function previewConfig(running: GatewayConfig, load: () => GatewayConfig): ReloadPreview {
  let next: GatewayConfig;
  try {
    next = load();
  } catch (err) {
    const errors = err instanceof ConfigError ? err.problems : [{ path: '', message: (err as Error).message }];
    return { valid: false, backends_added: [], backends_removed: [], backends_changed: [], settings_changed: [], errors };
  }
  const diff = diffBackends(running.backends, next.backends);
  return {
    valid: true,
    backends_added: diff.added,
    backends_removed: diff.removed,
    backends_changed: diff.changed,
    settings_changed: changedSettings(running, next),
    errors: [],
  };
}

const isSection = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function changedSettings(before: GatewayConfig, after: GatewayConfig): string[] {
  const changed: string[] = [];
  const a = before as unknown as Record<string, unknown>;
  const b = after as unknown as Record<string, unknown>;
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (key === 'backends' || isDeepStrictEqual(a[key], b[key])) continue;
    const x = a[key];
    const y = b[key];
    if (!isSection(x) || !isSection(y)) {
      changed.push(key);
      continue;
    }
    for (const sub of new Set([...Object.keys(x), ...Object.keys(y)])) if (!isDeepStrictEqual(x[sub], y[sub])) changed.push(`${key}.${sub}`);
  }
  return changed.sort();
}
