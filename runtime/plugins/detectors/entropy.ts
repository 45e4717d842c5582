/**
 * "A high-entropy string next to a key-like name": the shape of a secret no
 * pattern knows (`api_key: q8Zr3LmN0pXv7TbK2wYs`, `{"client_secret": "…"}`).
 * Both halves must hold: the name reads like a credential, and the value is
 * one token that looks random.
 */
import { isUuid } from './text-detector.js';

/** Words that make a key name a credential's; `max_tokens` or `author` do not count. */
const SECRET_WORDS = new Set([
  'secret',
  'token',
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'credential',
  'credentials',
  'apikey',
  'auth',
  'authorization',
  'bearer',
  'signature',
]);
const SECRET_PAIRS = new Set(['api key', 'access key', 'private key', 'client secret', 'secret key', 'session key']);

/** `githubToken`, `API_KEY`, `x-api-key`, `db.password`: yes; `max_tokens`, `author`, `keyboard`: no. */
export function isKeyLikeName(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  return words.some((w, i) => SECRET_WORDS.has(w) || (i > 0 && SECRET_PAIRS.has(`${words[i - 1]} ${w}`)));
}

const MIN_LENGTH = 16;
/** Bits per character: random base64 of this length is well above it, words and numbers below. */
const MIN_ENTROPY = 3.3;

/** One token (no spaces) of 16+ characters, of letters and digits mixed, with a high Shannon entropy; never a UUID. */
export function isHighEntropyToken(value: string): boolean {
  if (value.length < MIN_LENGTH || /\s/.test(value) || isUuid(value)) return false;
  const classes = Number(/[a-z]/.test(value)) + Number(/[A-Z]/.test(value)) + Number(/[0-9]/.test(value));
  return classes >= 2 && shannonEntropy(value) >= MIN_ENTROPY;
}

function shannonEntropy(value: string): number {
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}
