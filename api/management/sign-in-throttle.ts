/**
 * Guessing the management token through the console's sign-in is slowed
 * down: an address with too many failed sign-ins in a minute is refused
 * (429, `Retry-After`) until the minute is over. A success does not reset
 * the count: a guesser who also holds a valid token gains nothing.
 */
import { LRUCache } from 'lru-cache';
import { GatewayError } from '../../schemas/errors.js';

const WINDOW_MS = 60_000;
export const MAX_FAILURES = 10;

export class SignInThrottle {
  private readonly failures = new LRUCache<string, { count: number; since: number }>({ max: 10_000 });

  constructor(private readonly now: () => number = Date.now) {}

  /** Throws 429 while this address has used up its failures. */
  check(address: string): void {
    const entry = this.current(address);
    if (!entry || entry.count < MAX_FAILURES) return;
    const retryAfterS = Math.max(1, Math.ceil((entry.since + WINDOW_MS - this.now()) / 1000));
    throw new GatewayError('rate_limited', `Too many failed sign-ins from this address; retry in ${retryAfterS} s`, {
      per: 'address',
      retry_after_s: retryAfterS,
    });
  }

  failed(address: string): void {
    const entry = this.current(address) ?? { count: 0, since: this.now() };
    entry.count++;
    this.failures.set(address, entry);
  }

  private current(address: string) {
    const entry = this.failures.get(address);
    if (entry && this.now() - entry.since > WINDOW_MS) {
      this.failures.delete(address);
      return undefined;
    }
    return entry;
  }
}
