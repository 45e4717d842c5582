/**
 * rate_limiter's counts in Redis (with `sessions.store: redis`): every
 * replica counts in the same window, so a limit holds for the cluster. One
 * round trip per limited call (the gwRateHit script), on the replica's
 * command connection. While Redis is unreachable a call fails at once (no
 * offline queue) and the limiter fails as a plugin does: its
 * `execution_mode` says whether the call goes on (the default) or is refused.
 */
import type { Redis } from 'ioredis';
import type { RateCounterStore, RateWindow } from '../plugins/builtins/rate-counter-store.js';
import type { Logger } from '../observability/logging/logger.js';
import type { RedisKeys } from './redis-keys.js';
import { runScript } from './redis-scripts.js';

export class RedisRateCounterStore implements RateCounterStore {
  constructor(
    private readonly commands: Redis,
    private readonly keys: RedisKeys,
    /** The same on every replica for the same rate_limiter entry, and different for each entry. */
    private readonly limiter: string,
    private readonly log: Logger,
  ) {}

  async hit(key: string, windowMs: number, now: number): Promise<RateWindow> {
    let reply: unknown;
    try {
      reply = await runScript(this.commands, 'gwRateHit', [this.keys.rate(this.limiter, key)], [windowMs]);
    } catch (err) {
      // The Redis error stays in the debug log; the chain logs and reports this one.
      this.log.debug({ err: err instanceof Error ? err.message : String(err), op: 'rate hit' }, 'session store operation failed');
      throw new Error('cannot count the call: the session store (Redis) is unreachable', { cause: err });
    }
    const [count, leftMs] = reply as [number, number];
    return { count, resetAt: now + leftMs };
  }
}
