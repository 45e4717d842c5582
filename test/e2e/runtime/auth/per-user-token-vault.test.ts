/**
 * Where per-user tokens (`on_behalf_of.type: user_oauth`) are kept, against
 * the real stores: files in a folder of the test's own, and a real
 * `redis-server` (what `sessions.store: redis` uses). Both keep only sealed
 * values (AES-256-GCM): the token is nowhere in the clear, another key
 * opens nothing (the user then signs in again), and a deletion says whether
 * there was anything to delete (the 204/404 of the revocation route).
 */
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileUserTokenVault, lazyUserTokensKey, userTokensKey, type UserTokenVault } from '../../../../runtime/auth/user-token-vault.js';
import { RedisUserTokenVault } from '../../../../runtime/cluster/redis-user-token-vault.js';
import { RedisKeys } from '../../../../runtime/cluster/redis-keys.js';
import type { StoredAuthorization } from '../../../../runtime/auth/token-store.js';
import { silentLogger } from '../../../../runtime/observability/logging/logger.js';
import { RedisServer } from '../../../helpers/redis-server.js';

const ACCESS = `access-${randomBytes(16).toString('hex')}`;
const REFRESH = `refresh-${randomBytes(16).toString('hex')}`;
const stored: StoredAuthorization = {
  version: 1,
  server_url: 'http://127.0.0.1:9/mcp',
  tokens: { access_token: ACCESS, token_type: 'Bearer', refresh_token: REFRESH, expires_in: 300 },
  expires_at: Date.now() + 300_000,
};
const key = () => randomBytes(32);

/** What every vault must do, whatever it keeps its values in. */
async function roundTrip(vault: UserTokenVault): Promise<void> {
  expect(await vault.read('records', 'alice')).toBeUndefined();
  await vault.write('records', 'alice', stored);
  expect(await vault.read('records', 'alice')).toEqual(stored);
  // Another user, another backend: nothing.
  expect(await vault.read('records', 'bob')).toBeUndefined();
  expect(await vault.read('other', 'alice')).toBeUndefined();
}

describe('per-user token vaults: sealed at rest', () => {
  it('files: one per backend and user, 0600, named by a hash, sealed; another key opens nothing; delete says whether there was one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-vault-'));
    const k = key();
    const vault = new FileUserTokenVault(dir, () => k);
    await roundTrip(vault);
    const files = readdirSync(join(dir, 'records'));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^[0-9a-f]{64}\.json$/);
    const file = join(dir, 'records', files[0]!);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const raw = readFileSync(file, 'utf8');
    for (const secret of [ACCESS, REFRESH, 'alice']) expect(raw).not.toContain(secret);
    expect(await new FileUserTokenVault(dir, () => key()).read('records', 'alice')).toBeUndefined();
    expect(await vault.delete('records', 'alice')).toBe(true);
    expect(await vault.delete('records', 'alice')).toBe(false);
    expect(await vault.read('records', 'alice')).toBeUndefined();
    await expect(vault.read('../escape', 'alice')).rejects.toThrow(/Invalid backend name/);
  });

  it('the key: GATEWAY_SECRETS_KEY when set, else one made once (0600) in the folder and read back after', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-vault-key-'));
    const configured = randomBytes(32);
    expect(userTokensKey(dir, { GATEWAY_SECRETS_KEY: configured.toString('hex') })).toEqual(configured);
    expect(readdirSync(dir)).toEqual([]);
    const made = lazyUserTokensKey(dir)();
    expect(made).toHaveLength(32);
    expect(statSync(join(dir, 'key')).mode & 0o777).toBe(0o600);
    expect(userTokensKey(dir, {})).toEqual(made);
    expect(() => userTokensKey(dir, { GATEWAY_SECRETS_KEY: 'short' })).toThrow(/GATEWAY_SECRETS_KEY must be 32 bytes/);
  });

  describe('Redis', () => {
    let server: RedisServer;
    let redis: Redis;
    const keys = new RedisKeys('gw-vault-test');

    beforeAll(async () => {
      server = await RedisServer.start();
      redis = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
      await redis.connect();
    });
    afterAll(async () => {
      redis?.disconnect();
      await server?.stop();
    });

    it('one hash per backend, one field per user, the value sealed; shared by replicas; another key opens nothing', async () => {
      const k = key();
      const log = silentLogger();
      const vault = new RedisUserTokenVault(redis, keys, () => k, log);
      expect(vault.shared).toBe(true);
      await roundTrip(vault);
      const raw = await redis.hget('gw-vault-test:user-tokens:records', 'alice');
      expect(raw).not.toBeNull();
      for (const secret of [ACCESS, REFRESH]) expect(raw).not.toContain(secret);
      // Another replica with the same key reads what this one wrote; one with another key does not.
      expect(await new RedisUserTokenVault(redis, keys, () => k, log).read('records', 'alice')).toEqual(stored);
      expect(await new RedisUserTokenVault(redis, keys, () => key(), log).read('records', 'alice')).toBeUndefined();
      expect(await vault.delete('records', 'alice')).toBe(true);
      expect(await vault.delete('records', 'alice')).toBe(false);
      expect(await redis.hlen('gw-vault-test:user-tokens:records')).toBe(0);
    });
  });
});
