/**
 * What follows the running config besides the controller, in one shape: each
 * feature selects its slice of the desired state (the config the controller
 * applied) and applies it. They are registered once (app/follow-reloads.ts);
 * every applied config is handed to each in registration order, with the
 * slice it had before, and the reload reports which slices changed. The
 * desired state is the only source: a feature keeps nothing of the raw
 * config but what its `select` gives it.
 */
import canonicalize from 'canonicalize';
import type { GatewayConfig } from '../schemas/config.js';
import type { Logger } from '../runtime/observability/logging/logger.js';

export interface Reconfigurable<S> {
  /** Names it in the log line of a reload. */
  readonly name: string;
  /** Its slice of the desired state. */
  select(config: GatewayConfig): S;
  /**
   * Puts the slice in effect (the reload answers once the returned promise
   * settles); `previous` is the slice it had, absent the first time. True:
   * what clients may see changed (their lists are announced again).
   */
  apply(slice: S, previous: S | undefined): void | boolean | Promise<void | boolean>;
}

/** What one applied config changed. */
export interface Reconfigured {
  /** The features whose slice differs from the one before. */
  changed: string[];
  /** Some feature said what clients may see changed. */
  visible: boolean;
}

export class Reconfigurables {
  private readonly features: Array<{ r: Reconfigurable<unknown>; slice?: unknown; key?: string }> = [];

  constructor(private readonly log: Logger) {}

  register<S>(r: Reconfigurable<S>): this {
    this.features.push({ r: r as Reconfigurable<unknown> });
    return this;
  }

  /** Records the slices of the config the features were built with (nothing is applied: they already follow it). */
  prime(config: GatewayConfig): void {
    for (const feature of this.features) {
      feature.slice = feature.r.select(config);
      feature.key = canonicalize(feature.slice) ?? '';
    }
  }

  /** Applies every feature's slice, in order; one that fails is logged and leaves the others applied. */
  async apply(config: GatewayConfig): Promise<Reconfigured> {
    const changed: string[] = [];
    let visible = false;
    for (const feature of this.features) {
      const slice = feature.r.select(config);
      const key = canonicalize(slice) ?? '';
      if (feature.key !== undefined && key !== feature.key) changed.push(feature.r.name);
      try {
        if ((await feature.r.apply(slice, feature.slice)) === true) visible = true;
        feature.slice = slice;
        feature.key = key;
      } catch (err) {
        this.log.error({ err, feature: feature.r.name }, 'a reloaded setting was not applied; the previous one stays');
      }
    }
    if (changed.length > 0) this.log.info({ reconfigured: changed }, 'settings reloaded');
    return { changed, visible };
  }
}
