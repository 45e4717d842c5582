/**
 * The kinds secrets_detection knows (docs/plugins.md lists them): the
 * well-known formats of cloud keys, private key blocks, JWTs and service
 * tokens, then a high-entropy value after a key-like name, in text
 * (`api_key=…`, `"password": "…"`, `Bearer …`) or as the value of a
 * key-like key of the arguments or of structured content.
 */
import { isHighEntropyToken, isKeyLikeName } from './entropy.js';
import { redactText, redactedMarker, type Detector, type Tally } from './text-detector.js';

export const SECRET_DETECTORS: readonly Detector[] = [
  {
    kind: 'private_key',
    // To the END line, or to the end of the text when it was cut off.
    pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*$)/g,
  },
  { kind: 'aws_access_key', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g },
  { kind: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,}/g },
  { kind: 'github_token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g },
  { kind: 'slack_token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { kind: 'api_key', pattern: /\bsk-(?:[A-Za-z]+-)?[A-Za-z0-9_-]{20,}/g },
  { kind: 'stripe_key', pattern: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}\b/g },
  { kind: 'google_api_key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  {
    kind: 'bearer_token',
    pattern: /\bBearer\s+([A-Za-z0-9._~+/-]{16,}=*)/g,
    group: 1,
    accept: (value) => isHighEntropyToken(value),
  },
  {
    kind: 'high_entropy_secret',
    // name, an optional closing quote, `:` or `=`, an optional opening quote, the value. The match starts at
    // the `:` or `=` and finds the name looking back: started at every letter of a text, it cost ten times more.
    pattern: /[:=](?<=([A-Za-z][A-Za-z0-9_.-]{1,63})["']?\s*[:=])\s*["']?([A-Za-z0-9+/_.~=-]{16,})/g,
    group: 2,
    accept: (value, groups) => isKeyLikeName(groups[1] ?? '') && isHighEntropyToken(value),
  },
];

/** Texts shorter than the shortest secret need no scan. */
const MIN_SECRET_LENGTH = 16;

/** `text` with its secrets redacted; a whole value under a key-like key counts when it looks random. */
export function redactSecrets(text: string, key: string | undefined, tally: Tally): string {
  if (text.length < MIN_SECRET_LENGTH) return text;
  if (key !== undefined && isKeyLikeName(key) && isHighEntropyToken(text)) {
    tally.high_entropy_secret = (tally.high_entropy_secret ?? 0) + 1;
    return redactedMarker('high_entropy_secret');
  }
  return redactText(text, SECRET_DETECTORS, tally);
}
