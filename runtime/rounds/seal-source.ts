/**
 * Which seal (./state-seal.ts) the running config asks for: the operator's
 * key (`server.input_rounds.state_key`, with the previous one during a
 * rotation), or, when none is set, a random key: the one replicas share in
 * Redis (`sessions.store: redis`), or this process's own. A reload that
 * changes the keys changes the seal; states sealed before stay readable
 * only when the old key is given as `previous_state_key`.
 */
import type { GatewayConfig } from '../../schemas/config.js';
import type { Logger } from '../observability/logging/logger.js';
import { StateSeal } from './state-seal.js';

type Settings = GatewayConfig['server']['input_rounds'];

/** How often a replica tries again to read the shared key while Redis is unreachable. */
const SHARED_KEY_RETRY_MS = 5_000;

export class SealSource {
  private configured?: { key: string; previous?: string; seal: StateSeal };
  private fallback = StateSeal.ephemeral();

  constructor(private readonly settings: () => Settings) {}

  /** The seal for states sealed and opened now. */
  current(): StateSeal {
    const { state_key: key, previous_state_key: previous } = this.settings();
    if (key === undefined) return this.fallback;
    if (this.configured?.key !== key || this.configured.previous !== previous) this.configured = { key, previous, seal: new StateSeal(key, previous) };
    return this.configured.seal;
  }

  /** Without a configured key, replicas share one random key kept in Redis; until it is read, this process's own is used. */
  shareThrough(load: () => Promise<Buffer>, log: Logger): void {
    const attempt = () => {
      load().then(
        (key) => {
          this.fallback = new StateSeal(key);
        },
        (err: unknown) => {
          log.warn({ err: err instanceof Error ? err.message : String(err) }, 'shared requestState key not read from Redis yet; retrying');
          setTimeout(attempt, SHARED_KEY_RETRY_MS).unref();
        },
      );
    };
    attempt();
  }
}
