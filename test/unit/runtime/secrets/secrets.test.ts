import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REDACTED, Redactor, SecretTooShortError } from '../../../../runtime/observability/logging/redactor.js';
import { EncryptedFileSecretProvider } from '../../../../runtime/secrets/encrypted-file-provider.js';
import { EnvSecretProvider } from '../../../../runtime/secrets/env-provider.js';
import { SecretNotFoundError, SecretsFileError, SecretsKeyError } from '../../../../runtime/secrets/errors.js';
import { SecretStore } from '../../../../runtime/secrets/secret-store.js';
import { SECRETS_KEY_ENV, encryptSecretsFile, parseSecretsKey } from '../../../../runtime/secrets/secrets-file-crypto.js';
import { GatewayError } from '../../../../schemas/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'secrets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileCounter = 0;
function writeSecretsFile(values: Record<string, string>, key: Buffer | string): string {
  const file = join(dir, `secrets-${fileCounter++}.json`);
  writeFileSync(file, encryptSecretsFile(values, key));
  return file;
}

describe('EnvSecretProvider', () => {
  it('reads variables from the given environment and treats empty as missing', () => {
    const provider = new EnvSecretProvider({ API_TOKEN: 'env-token-value', EMPTY: '' });
    expect(provider.get('API_TOKEN')).toBe('env-token-value');
    expect(provider.get('EMPTY')).toBeUndefined();
    expect(provider.get('MISSING')).toBeUndefined();
  });

  it('defaults to process.env', () => {
    process.env.SECRETS_TEST_VAR = 'from-process-env';
    try {
      expect(new EnvSecretProvider().get('SECRETS_TEST_VAR')).toBe('from-process-env');
    } finally {
      delete process.env.SECRETS_TEST_VAR;
    }
  });
});

describe('encrypted secrets file', () => {
  const key = randomBytes(32);

  it('round-trips through encryptSecretsFile with the key from GATEWAY_SECRETS_KEY (hex or base64)', () => {
    const file = writeSecretsFile({ DB_PASSWORD: 'correct horse battery', 'api.key-1': 'k-0123456789' }, key);
    for (const text of [key.toString('hex'), key.toString('base64'), key.toString('base64url')]) {
      const provider = new EncryptedFileSecretProvider(file, { env: { [SECRETS_KEY_ENV]: text } });
      expect(provider.get('DB_PASSWORD')).toBe('correct horse battery');
      expect(provider.get('api.key-1')).toBe('k-0123456789');
      expect(provider.get('OTHER')).toBeUndefined();
      expect(provider.name).toBe(`file:${file}`);
    }
  });

  it('writes the documented envelope and never the plaintext', () => {
    const content = encryptSecretsFile({ TOKEN: 'plaintext-must-not-appear' }, key);
    const envelope = JSON.parse(content) as Record<string, unknown>;
    expect(Object.keys(envelope).sort()).toEqual(['data', 'iv', 'tag', 'version']);
    expect(envelope.version).toBe(1);
    expect(Buffer.from(envelope.iv as string, 'base64')).toHaveLength(12);
    expect(Buffer.from(envelope.tag as string, 'base64')).toHaveLength(16);
    expect(content).not.toContain('plaintext-must-not-appear');
    // A fresh IV each time.
    expect(encryptSecretsFile({ TOKEN: 'x' }, key)).not.toBe(encryptSecretsFile({ TOKEN: 'x' }, key));
  });

  it('fails with SecretsKeyError when the key is missing or malformed', () => {
    const file = writeSecretsFile({ A: 'aaaaaaaaaa' }, key);
    expect(() => new EncryptedFileSecretProvider(file, { env: {} })).toThrow(SecretsKeyError);
    expect(() => new EncryptedFileSecretProvider(file, { env: { [SECRETS_KEY_ENV]: 'abcd' } })).toThrow(SecretsKeyError);
    expect(() => parseSecretsKey(randomBytes(16).toString('hex'))).toThrow(SecretsKeyError);
    expect(() => encryptSecretsFile({}, randomBytes(31))).toThrow(SecretsKeyError);
  });

  it('fails with SecretsFileError on a wrong key, a tampered file, or a missing file', () => {
    const file = writeSecretsFile({ A: 'aaaaaaaaaa' }, key);
    expect(() => new EncryptedFileSecretProvider(file, { key: randomBytes(32) })).toThrow(/wrong key/);

    const envelope = JSON.parse(encryptSecretsFile({ A: 'aaaaaaaaaa' }, key)) as { data: string };
    const bytes = Buffer.from(envelope.data, 'base64');
    bytes[0] = bytes[0] ^ 1;
    const tampered = join(dir, 'tampered.json');
    writeFileSync(tampered, JSON.stringify({ ...envelope, data: bytes.toString('base64') }));
    expect(() => new EncryptedFileSecretProvider(tampered, { key })).toThrow(SecretsFileError);

    expect(() => new EncryptedFileSecretProvider(join(dir, 'absent.json'), { key })).toThrow(SecretsFileError);
    const notJson = join(dir, 'not-json.json');
    writeFileSync(notJson, 'hello');
    expect(() => new EncryptedFileSecretProvider(notJson, { key })).toThrow(SecretsFileError);
  });
});

describe('SecretStore', () => {
  const key = randomBytes(32);

  function store(env: Record<string, string>, fileValues: Record<string, string> = {}) {
    const redactor = new Redactor();
    const file = writeSecretsFile(fileValues, key);
    const s = new SecretStore([new EnvSecretProvider(env), new EncryptedFileSecretProvider(file, { key })], redactor);
    return { store: s, redactor };
  }

  it('resolves a name from the first provider that has it', () => {
    const { store: s } = store({ SHARED: 'from-env-first' }, { SHARED: 'from-file-second', ONLY_FILE: 'only-in-the-file' });
    expect(s.resolve('SHARED')).toBe('from-env-first');
    expect(s.resolve('ONLY_FILE')).toBe('only-in-the-file');
  });

  it('replaces secret:<name> references anywhere in a string', () => {
    const { store: s } = store({ TOKEN: 'tok-12345678', 'db.user-1': 'database-user' }, { PASS: 'file-password' });
    expect(s.resolveString('secret:TOKEN')).toBe('tok-12345678');
    expect(s.resolveString('Bearer secret:TOKEN')).toBe('Bearer tok-12345678');
    expect(s.resolveString('postgres://secret:db.user-1:secret:PASS@host/db')).toBe('postgres://database-user:file-password@host/db');
    expect(s.resolveString('no references here')).toBe('no references here');
  });

  it('resolves references inside nested config values', () => {
    const { store: s } = store({ TOKEN: 'tok-12345678' });
    const config = { env: { A: 'secret:TOKEN', B: 'plain' }, args: ['--token', 'secret:TOKEN'], port: 8080 };
    expect(s.resolveDeep(config)).toEqual({ env: { A: 'tok-12345678', B: 'plain' }, args: ['--token', 'tok-12345678'], port: 8080 });
    expect(config.env.A).toBe('secret:TOKEN'); // input not mutated
  });

  it('registers every resolved value with the redactor', () => {
    const { store: s, redactor } = store({ TOKEN: 'tok-12345678' }, { PASS: 'file-password' });
    expect(redactor.hasSecrets).toBe(false);
    s.resolveString('a secret:TOKEN b secret:PASS');
    expect(redactor.size).toBe(2);
    expect(redactor.redact('x tok-12345678 y file-password')).toBe(`x ${REDACTED} y ${REDACTED}`);
  });

  it('throws SecretNotFoundError naming the secret and the providers tried', () => {
    const { store: s } = store({});
    expect(() => s.resolve('NOPE')).toThrow(SecretNotFoundError);
    try {
      s.resolveString('Bearer secret:MISSING_TOKEN');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(SecretNotFoundError);
      expect(err).toBeInstanceOf(GatewayError);
      expect((err as SecretNotFoundError).secretName).toBe('MISSING_TOKEN');
      expect((err as Error).message).toContain('MISSING_TOKEN');
      expect((err as Error).message).toContain('env');
    }
  });

  it('refuses a secret too short to redact, naming it but not revealing it', () => {
    const { store: s, redactor } = store({ SHORT: 'abc' });
    try {
      s.resolve('SHORT');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(SecretTooShortError);
      expect((err as SecretTooShortError).secretName).toBe('SHORT');
      expect((err as Error).message).toContain('SHORT');
      expect((err as Error).message).not.toContain('abc');
    }
    expect(redactor.hasSecrets).toBe(false);
  });

  it('registers what it resolves with its own redactor, not with any other', () => {
    const own = new Redactor();
    const other = new Redactor();
    new SecretStore([new EnvSecretProvider({ T: 'own-redactor-secret' })], own).resolve('T');
    expect(own.redact('own-redactor-secret')).toBe(REDACTED);
    expect(other.redact('own-redactor-secret')).toBe('own-redactor-secret');
  });

  it('detects references', () => {
    expect(SecretStore.hasReference('Bearer secret:X')).toBe(true);
    expect(SecretStore.hasReference('secret: spaced')).toBe(false);
    expect(SecretStore.hasReference('plain')).toBe(false);
  });
});
