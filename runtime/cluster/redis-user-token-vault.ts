/**
 * The per-user OAuth tokens shared by the replicas (`sessions.store:
 * redis`): one hash per backend (`<prefix>:user-tokens:<backend>`), one
 * field per user id, each value sealed (AES-256-GCM, see
 * runtime/auth/user-token-vault.ts) so Redis never holds a token in the
 * clear. A user who signs in through one replica is served by every other;
 * a revocation (HDEL) holds for all of them at the next call.
 */
import type { Redis } from 'ioredis';
import type { Logger } from '../observability/logging/logger.js';
import type { StoredAuthorization } from '../auth/token-store.js';
import { seal, unseal, type UserTokenVault } from '../auth/user-token-vault.js';
import type { RedisKeys } from './redis-keys.js';
import { storeCall } from './store-call.js';

export class RedisUserTokenVault implements UserTokenVault {
  readonly shared = true;

  constructor(
    private readonly commands: Redis,
    private readonly keys: RedisKeys,
    /** Asked at first use: a gateway with no user_oauth backend makes no key. */
    private readonly key: () => Buffer,
    private readonly log: Logger,
  ) {}

  async read(backend: string, user: string): Promise<StoredAuthorization | undefined> {
    const text = await storeCall(this.log, 'user token read', () => this.commands.hget(this.keys.userTokens(backend), user));
    return text === null ? undefined : unseal(text, this.key());
  }

  async write(backend: string, user: string, data: StoredAuthorization): Promise<void> {
    await storeCall(this.log, 'user token write', () => this.commands.hset(this.keys.userTokens(backend), user, seal(data, this.key())));
  }

  async delete(backend: string, user: string): Promise<boolean> {
    return (await storeCall(this.log, 'user token delete', () => this.commands.hdel(this.keys.userTokens(backend), user))) > 0;
  }
}
