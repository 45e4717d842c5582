/**
 * Where the tokens each user granted a backend (`auth.on_behalf_of.type:
 * user_oauth`) are kept between calls and runs, sealed with AES-256-GCM
 * (runtime/secrets/secrets-file-crypto.ts): a copy of the store's files or
 * of its Redis values reveals nothing without the key. The key is
 * `GATEWAY_SECRETS_KEY` when set (the same on every replica), else one the
 * gateway made for itself in `<state>/user-tokens/key` (mode 0600).
 *
 * Here the files: `<state>/user-tokens/<backend>/<sha256(user id)>.json`,
 * mode 0600; with `sessions.store: redis` the replicas share
 * runtime/cluster/redis-user-token-vault.ts instead. A value that does not
 * open (another key, an edited file) counts as no token: the user signs in
 * again.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { openJson, parseSecretsKey, SECRETS_KEY_ENV, sealJson } from '../secrets/secrets-file-crypto.js';
import { stateDir } from '../state-dir.js';
import { BACKEND_NAME_PATTERN } from '../../schemas/config.js';
import { validStored, type StoredAuthorization } from './token-store.js';

export interface UserTokenVault {
  /** True when other replicas write to it too: what a replica holds in memory may be stale. */
  readonly shared: boolean;
  read(backend: string, user: string): Promise<StoredAuthorization | undefined>;
  write(backend: string, user: string, data: StoredAuthorization): Promise<void>;
  /** Whether there was anything to delete. */
  delete(backend: string, user: string): Promise<boolean>;
}

/** `<state>/user-tokens` */
export const userTokensDir = (env?: NodeJS.ProcessEnv): string => join(stateDir(env), 'user-tokens');

/** The sealing key: `GATEWAY_SECRETS_KEY`, else `<dir>/key`, made (32 random bytes, 0600) on first use. */
export function userTokensKey(dir: string, env: NodeJS.ProcessEnv = process.env): Buffer {
  const configured = env[SECRETS_KEY_ENV];
  if (configured) return parseSecretsKey(configured);
  const file = join(dir, 'key');
  try {
    return parseSecretsKey(readFileSync(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  try {
    writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (err) {
    // Another process made it first: theirs is the key.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return parseSecretsKey(readFileSync(file, 'utf8'));
    throw err;
  }
}

/** The sealing key of `dir`, read (or made) once, at first use. */
export function lazyUserTokensKey(dir: string): () => Buffer {
  let key: Buffer | undefined;
  return () => (key ??= userTokensKey(dir));
}

/** A sealed value as stored (JSON text of the envelope). */
export function seal(data: StoredAuthorization, key: Buffer): string {
  return JSON.stringify(sealJson(data, key));
}

/** The authorization a sealed value holds, or undefined when it does not open or is not one. */
export function unseal(text: string, key: Buffer): StoredAuthorization | undefined {
  try {
    return validStored(openJson(text, key));
  } catch {
    return undefined;
  }
}

export class FileUserTokenVault implements UserTokenVault {
  readonly shared = false;

  constructor(
    private readonly dir: string,
    /** Asked at first use: a gateway with no user_oauth backend makes no key. */
    private readonly key: () => Buffer,
  ) {}

  async read(backend: string, user: string): Promise<StoredAuthorization | undefined> {
    let text: string;
    try {
      text = readFileSync(this.fileOf(backend, user), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    return unseal(text, this.key());
  }

  async write(backend: string, user: string, data: StoredAuthorization): Promise<void> {
    const file = this.fileOf(backend, user);
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // Write then rename: a reader sees the old value or the new one, never half of one.
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      writeFileSync(tmp, seal(data, this.key()), { mode: 0o600, flag: 'wx' });
      renameSync(tmp, file);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
  }

  async delete(backend: string, user: string): Promise<boolean> {
    const file = this.fileOf(backend, user);
    try {
      rmSync(file);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  }

  /** The user id is hashed: any string is a safe file name, and the folder does not list who signed in. */
  private fileOf(backend: string, user: string): string {
    if (!new RegExp(BACKEND_NAME_PATTERN).test(backend)) throw new Error(`Invalid backend name for a token file: ${JSON.stringify(backend)}`);
    return join(this.dir, backend, `${createHash('sha256').update(user).digest('hex')}.json`);
  }
}
