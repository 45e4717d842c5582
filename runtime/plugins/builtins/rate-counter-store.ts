/**
 * Where rate_limiter counts calls: a fixed window per key, started by the
 * key's first call, so one store operation per call (an INCR with an expiry
 * in Redis). This process's memory, or with the Redis session store Redis
 * (runtime/cluster/redis-rate-counter-store.ts): counts for the cluster.
 */
import { LRUCache } from 'lru-cache';

export interface RateWindow {
  /** Calls of the key in this window, this one included. */
  count: number;
  /** When the window ends (epoch ms). */
  resetAt: number;
}

export interface RateCounterStore {
  /** Counts one call of `key` in its current window, starting a new window when the last one has ended. */
  hit(key: string, windowMs: number, now: number): RateWindow | Promise<RateWindow>;
}

/** Keys at most (the least recently used go first): a flood of client addresses cannot grow the gateway without bound. */
const MAX_KEYS = 100_000;

export class MemoryRateCounterStore implements RateCounterStore {
  private readonly windows = new LRUCache<string, RateWindow>({ max: MAX_KEYS });

  hit(key: string, windowMs: number, now: number): RateWindow {
    let window = this.windows.get(key);
    if (window === undefined || window.resetAt <= now) {
      window = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, window);
    }
    window.count++;
    return window;
  }
}
