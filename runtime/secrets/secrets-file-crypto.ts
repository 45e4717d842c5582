/**
 * The encrypted secrets file format: a JSON object of secret name → value,
 * encrypted with AES-256-GCM and stored as
 * `{"version":1,"iv":"<base64>","tag":"<base64>","data":"<base64>"}`.
 *
 * GCM authenticates as well as encrypts, so a wrong key or an edited file is
 * reported as such instead of yielding garbage secrets.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { SecretsKeyError } from './errors.js';

export const SECRETS_KEY_ENV = 'GATEWAY_SECRETS_KEY';
export const SECRETS_FILE_VERSION = 1;

const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
/** 96-bit IVs are GCM's recommended (and fastest) size. */
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface EncryptedSecretsFile {
  version: typeof SECRETS_FILE_VERSION;
  iv: string;
  tag: string;
  data: string;
}

/** Accepts 64 hex digits or base64 (standard or URL-safe) of exactly 32 bytes. */
export function parseSecretsKey(text: string): Buffer {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) {
    const key = Buffer.from(trimmed, 'base64');
    if (key.length === KEY_BYTES) return key;
  }
  // Do not echo the text: it may be a real key with a typo.
  throw new SecretsKeyError(`${SECRETS_KEY_ENV} must be ${KEY_BYTES} bytes written as 64 hex digits or as base64`);
}

function toKey(key: Buffer | string): Buffer {
  if (typeof key === 'string') return parseSecretsKey(key);
  if (key.length !== KEY_BYTES) throw new SecretsKeyError(`The secrets key must be ${KEY_BYTES} bytes, got ${key.length}`);
  return key;
}

/** Returns the file's content (JSON text with a trailing newline). A fresh random IV is used every time. */
export function encryptSecretsFile(values: Record<string, string>, key: Buffer | string): string {
  return `${JSON.stringify(sealJson(values, key), null, 2)}\n`;
}

/**
 * Any JSON value sealed with AES-256-GCM under a fresh random IV: the
 * envelope of the secrets file, also what keeps the per-user OAuth tokens
 * encrypted at rest (runtime/auth/user-token-vault.ts).
 */
export function sealJson(value: unknown, key: Buffer | string): EncryptedSecretsFile {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, toKey(key), iv, { authTagLength: TAG_BYTES });
  const data = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return { version: SECRETS_FILE_VERSION, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
}

/** Inverse of sealJson for an envelope's JSON text; throws a plain Error saying what is wrong (wrong key, modified, malformed). */
export function openJson(content: string, key: Buffer | string): unknown {
  const file = parseEnvelope(content);
  const decipher = createDecipheriv(ALGORITHM, toKey(key), Buffer.from(file.iv, 'base64'), { authTagLength: TAG_BYTES });
  decipher.setAuthTag(Buffer.from(file.tag, 'base64'));
  try {
    return JSON.parse(Buffer.concat([decipher.update(Buffer.from(file.data, 'base64')), decipher.final()]).toString('utf8'));
  } catch (err) {
    throw new Error('cannot decrypt: wrong key or the file was modified', { cause: err });
  }
}

/**
 * Inverse of encryptSecretsFile. Throws a plain Error describing the problem;
 * the caller knows the file name and wraps it.
 */
export function decryptSecretsFile(content: string, key: Buffer | string): Record<string, string> {
  return parseValues(openJson(content, key));
}

function parseEnvelope(content: string): EncryptedSecretsFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch (err) {
    throw new Error('not valid JSON', { cause: err });
  }
  if (typeof parsed !== 'object' || parsed === null) throw new Error('expected a JSON object');
  const file = parsed as Record<string, unknown>;
  if (file.version !== SECRETS_FILE_VERSION) throw new Error(`unsupported version ${String(file.version)}`);
  for (const field of ['iv', 'tag', 'data'] as const) {
    if (typeof file[field] !== 'string') throw new Error(`field '${field}' must be a base64 string`);
  }
  if (Buffer.from(file.iv as string, 'base64').length !== IV_BYTES) throw new Error(`iv must be ${IV_BYTES} bytes`);
  if (Buffer.from(file.tag as string, 'base64').length !== TAG_BYTES) throw new Error(`tag must be ${TAG_BYTES} bytes`);
  return file as unknown as EncryptedSecretsFile;
}

function parseValues(values: unknown): Record<string, string> {
  if (typeof values !== 'object' || values === null || Array.isArray(values)) {
    throw new Error('decrypted content must be a JSON object of name → string');
  }
  for (const [name, value] of Object.entries(values)) {
    if (typeof value !== 'string') throw new Error(`secret '${name}' must be a string`);
  }
  return values as Record<string, string>;
}
