import { readFileSync } from 'node:fs';
import { SecretsFileError, SecretsKeyError } from './errors.js';
import type { SecretProvider } from './secret-provider.js';
import { SECRETS_KEY_ENV, decryptSecretsFile } from './secrets-file-crypto.js';

export interface EncryptedFileSecretProviderOptions {
  /** Overrides the key from the environment (32 bytes, or its hex/base64 text). */
  key?: Buffer | string;
  /** Where GATEWAY_SECRETS_KEY is read from; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Secrets from an AES-256-GCM encrypted JSON file (see secrets-file-crypto.ts).
 * The file is read and decrypted once, at construction, so a wrong key or a
 * corrupt file fails startup rather than the first request that needs a secret.
 */
export class EncryptedFileSecretProvider implements SecretProvider {
  readonly name: string;
  private readonly values: ReadonlyMap<string, string>;

  constructor(file: string, opts: EncryptedFileSecretProviderOptions = {}) {
    this.name = `file:${file}`;
    const key = opts.key ?? (opts.env ?? process.env)[SECRETS_KEY_ENV];
    if (key === undefined || key === '') {
      throw new SecretsKeyError(`${SECRETS_KEY_ENV} must be set to read the secrets file ${file}`);
    }

    let content: string;
    try {
      content = readFileSync(file, 'utf8');
    } catch (err) {
      throw new SecretsFileError(file, `cannot read: ${(err as Error).message}`, err);
    }
    try {
      this.values = new Map(Object.entries(decryptSecretsFile(content, key)));
    } catch (err) {
      if (err instanceof SecretsKeyError) throw err;
      throw new SecretsFileError(file, (err as Error).message, err);
    }
  }

  get(secretName: string): string | undefined {
    return this.values.get(secretName);
  }
}
