/**
 * Every Redis operation of the shared store goes through here: whatever went
 * wrong (connection refused, timeout, a restart mid-command) becomes the
 * typed "session store unavailable, come back in N s"; the Redis error is
 * logged (debug), never passed to a client.
 */
import { SessionStoreUnavailableError } from '../../schemas/errors.js';
import type { Logger } from '../observability/logging/logger.js';

/** What a client refused because the store is unreachable is told to wait before trying again. */
export const STORE_RETRY_AFTER_S = 2;

export async function storeCall<T>(log: Logger, what: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    log.debug({ err: err instanceof Error ? err.message : String(err), op: what }, 'session store operation failed');
    throw new SessionStoreUnavailableError(STORE_RETRY_AFTER_S);
  }
}
