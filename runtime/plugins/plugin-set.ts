/**
 * The configured plugins and the chain made of them. `apply` (at start and
 * after every reload) builds a new chain: entries in priority order (equal
 * priorities in config order), each enabled one loaded, or kept when its
 * name, module (file unchanged) and settings are the same as before, with
 * its state and counters (a circuit stays open, counts and the cache stay).
 * A plugin a reload removes or disables is unloaded (`on_unload`), and so is
 * every one on graceful shutdown.
 *
 * A plugin that does not load (a module that fails to import, has no hooks,
 * whose `on_load` fails, or that takes longer than `timeout_s`: its worker
 * is ended and the start goes on) follows its execution mode: under `enforce`
 * every call it would see fails with `plugin_failed`; otherwise it is left
 * out of the chain. The error is logged and shown in GET /plugins.
 *
 * No enabled plugin: no chain at all, and the router does no extra work.
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { stringify } from 'safe-stable-stringify';
import type { GatewayConfig } from '../../schemas/config.js';
import { isBuiltinName, type PluginEntry } from '../../schemas/plugins.js';
import type { CircuitState } from '../../schemas/records.js';
import type { Logger } from '../observability/logging/logger.js';
import { errorMessage } from '../observability/failure.js';
import { createBuiltin } from './builtins/index.js';
import { CircuitBreaker } from './builtins/circuit-breaker.js';
import { MemoryRateCounterStore, type RateCounterStore } from './builtins/rate-counter-store.js';
import { backendMatcher, callMatcher } from './conditions.js';
import { newCounters, type PluginCounters } from './counters.js';
import { loadOwnPlugin } from './own-plugin.js';
import type { Plugin } from './plugin.js';
import { PluginChain, type ChainLink } from './plugin-chain.js';
import { PluginNotLoadedError } from './plugin-failures.js';
import type { PluginEventSink } from './plugin-events.js';
import { withTimeout } from './timeout.js';

export interface PluginSetDeps {
  log: Logger;
  /** Where circuit events go (the composition root hands in the event bus). */
  events: PluginEventSink;
  /**
   * Where rate_limiter counts; default this process's memory. `limiter`
   * names the entry, the same on every replica running the same config.
   */
  rateStore?: (limiter: string) => RateCounterStore;
}

/** One entry of GET /manage/v1/plugins. */
export interface PluginStatus {
  name: string;
  enabled: boolean;
  execution_mode: PluginEntry['execution_mode'];
  priority: number;
  module: string | null;
  /** Why it did not load, or null. */
  error: string | null;
  counters: PluginCounters;
}

interface Loaded {
  /** Same name, module version and settings: the same instance. */
  key: string;
  /** Its `timeout_s`, which `on_unload` gets too. */
  timeoutMs: number;
  /** Absent when it did not load. */
  plugin?: Plugin;
  error?: string;
  counters: PluginCounters;
}

interface Slot {
  entry: PluginEntry;
  loaded?: Loaded;
}

const RANK = { closed: 0, half_open: 1, open: 2 } as const;

export class PluginSet {
  private slots: Slot[] = [];
  private current: PluginChain | undefined;
  private applying: Promise<void> = Promise.resolve();

  constructor(private readonly deps: PluginSetDeps) {}

  /** The chain to run calls through; undefined when no plugin is enabled. */
  get chain(): PluginChain | undefined {
    return this.current;
  }

  /** Builds the chain of a config's `plugins`; applies run one after the other. */
  apply(plugins: GatewayConfig['plugins']): Promise<void> {
    // The loader has filled in every default.
    const entries = plugins as PluginEntry[];
    const run = this.applying.then(() => this.rebuild(entries));
    this.applying = run.catch(() => undefined);
    return run;
  }

  /** Every entry in chain order, enabled or not. */
  list(): PluginStatus[] {
    return this.slots.map(({ entry, loaded }) => ({
      name: entry.name,
      enabled: entry.enabled,
      execution_mode: entry.execution_mode,
      priority: entry.priority,
      module: entry.module ?? null,
      error: loaded?.error ?? null,
      counters: { ...(loaded?.counters ?? newCounters()) },
    }));
  }

  /** A backend's circuit: the most open one of the circuit breakers in the chain; null with none. */
  circuitOf(backend: string): CircuitState | null {
    let state: CircuitState | null = null;
    for (const link of this.current?.links ?? []) {
      if (!(link.plugin instanceof CircuitBreaker)) continue;
      const s = link.plugin.stateOf(backend);
      if (state === null || RANK[s] > RANK[state]) state = s;
    }
    return state;
  }

  /** Unloads every plugin (graceful shutdown). */
  async close(): Promise<void> {
    await this.applying;
    const loaded = this.slots.map((s) => s.loaded);
    this.slots = [];
    this.current = undefined;
    await this.unload(loaded);
  }

  private async rebuild(entries: readonly PluginEntry[]): Promise<void> {
    const ordered = entries.map((entry, i) => ({ entry, i })).sort((a, b) => a.entry.priority - b.entry.priority || a.i - b.i);
    const spare = this.slots.map((s) => s.loaded).filter((l): l is Loaded => l?.plugin !== undefined);
    const instances = instanceIds(entries);
    const slots: Slot[] = [];
    for (const { entry } of ordered) {
      if (!entry.enabled || entry.execution_mode === 'disabled') {
        slots.push({ entry });
        continue;
      }
      const key = keyOf(entry);
      const kept = spare.findIndex((l) => l.key === key);
      slots.push({ entry, loaded: kept >= 0 ? spare.splice(kept, 1)[0] : await this.load(entry, key, instances.get(entry)!) });
    }
    this.slots = slots;
    this.current = this.chainOf(slots);
    await this.unload(spare);
  }

  private chainOf(slots: Slot[]): PluginChain | undefined {
    const links: ChainLink[] = [];
    for (const { entry, loaded } of slots) {
      if (loaded === undefined || entry.execution_mode === 'disabled') continue;
      // A plugin that did not load fails every call it would see under `enforce`; otherwise it is left out.
      if (loaded.plugin === undefined && entry.execution_mode !== 'enforce') continue;
      const plugin = loaded.plugin ?? notLoaded(loaded.error ?? 'unknown error');
      links.push({
        name: entry.name,
        mode: entry.execution_mode,
        timeoutMs: entry.timeout_s * 1000,
        plugin,
        counters: loaded.counters,
        applies: callMatcher(entry.conditions, plugin.methods),
        hears: backendMatcher(entry.conditions),
      });
    }
    return links.length === 0 ? undefined : new PluginChain(links, this.deps.log);
  }

  private async load(entry: PluginEntry, key: string, instance: string): Promise<Loaded> {
    const counters = newCounters();
    const timeoutMs = entry.timeout_s * 1000;
    try {
      if (entry.module === undefined) {
        if (!isBuiltinName(entry.name)) throw new Error(`no built-in plugin '${entry.name}'`);
        return { key, timeoutMs, counters, plugin: createBuiltin(entry.name, entry.settings, this.builtinContext(entry.name, instance)) };
      }
      // Its own worker: a module that never finishes loading is ended after timeout_s, and the start or reload goes on.
      const plugin = await loadOwnPlugin({ name: entry.name, path: entry.module, settings: entry.settings, timeoutMs, events: this.deps.events });
      return { key, timeoutMs, counters, plugin };
    } catch (err) {
      const error = errorMessage(err);
      counters.errors++;
      this.deps.log.error(
        { plugin: entry.name, module: entry.module, mode: entry.execution_mode },
        `plugin ${entry.name} did not load: ${error}${entry.execution_mode === 'enforce' ? ' (enforce: the calls it would see fail)' : ' (left out of the chain)'}`,
      );
      return { key, timeoutMs, counters, error };
    }
  }

  private builtinContext(name: string, instance: string) {
    const shared = this.deps.rateStore;
    return {
      name,
      log: this.deps.log,
      events: this.deps.events,
      rateStore: shared ? () => shared(instance) : () => new MemoryRateCounterStore(),
    };
  }

  private async unload(loaded: ReadonlyArray<Loaded | undefined>): Promise<void> {
    for (const l of loaded) {
      const plugin = l?.plugin;
      if (plugin?.unload === undefined) continue;
      try {
        // A shutdown waits for it, so it gets the plugin's timeout too (then a plugin of your own loses its worker).
        const unloading = Promise.resolve(plugin.unload());
        await withTimeout(unloading, l!.timeoutMs, 'on_unload', plugin.abandon && (() => plugin.abandon!(unloading, l!.timeoutMs)));
      } catch (err) {
        this.deps.log.warn({ err }, 'a plugin failed to unload');
      }
    }
  }
}

/** What makes an instance: a change of mode, priority, timeout or conditions keeps it (and its state). */
function keyOf(entry: PluginEntry): string {
  const version = entry.module === undefined ? null : versionOf(entry.module);
  return stringify([entry.name, entry.module ?? null, version, entry.settings]) ?? entry.name;
}

/**
 * A short id per entry, the same in every replica that runs the same config
 * (shared rate counts are kept under it): its name and settings, and which
 * of the entries with the same ones it is, in config order.
 */
function instanceIds(entries: readonly PluginEntry[]): Map<PluginEntry, string> {
  const seen = new Map<string, number>();
  const ids = new Map<PluginEntry, string>();
  for (const entry of entries) {
    const key = keyOf(entry);
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    ids.set(entry, `${entry.name}:${createHash('sha256').update(`${key}#${n}`).digest('hex').slice(0, 12)}`);
  }
  return ids;
}

/** The module file's modification time: an edited module is imported afresh on the next reload. */
function versionOf(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function notLoaded(error: string): Plugin {
  return {
    pre() {
      throw new PluginNotLoadedError(error);
    },
  };
}
