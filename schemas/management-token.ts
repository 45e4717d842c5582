/**
 * What the gateway accepts as a management token (docs/configuration.md):
 * long enough not to be guessed, and none of the placeholders that sample
 * configs and manifests carry. One list, read by the config check
 * (controller/config/management-checks.ts) and the deploy tests.
 */

export const MANAGEMENT_TOKEN_MIN_LENGTH = 32;

/**
 * Values that stand for "put your token here". Compared after folding case
 * and dropping `-`, `_`, `.` and spaces, so `Change_Me` is `changeme`; a
 * token that only repeats one of them (or one character) is refused too.
 */
export const PLACEHOLDER_TOKENS: readonly string[] = [
  'replace-with-a-long-random-token',
  'changeme',
  'change-me',
  'replace-me',
  'replaceme',
  'your-token',
  'your-token-here',
  'your-management-token',
  'insert-token-here',
  'token',
  'secret',
  'password',
  'management-token',
  'mgmt-token',
  'admin',
  'example',
  'placeholder',
  'todo',
  'test',
];

const fold = (value: string) => value.toLowerCase().replace(/[-_.\s]/g, '');

const FOLDED = new Set(PLACEHOLDER_TOKENS.map(fold));

/** True when the token is a placeholder, or a placeholder (or one character) said again and again. */
export function isPlaceholderToken(token: string): boolean {
  const folded = fold(token);
  if (folded === '' || FOLDED.has(folded)) return true;
  if (new Set(folded).size === 1) return true;
  return [...FOLDED].some((p) => folded.length % p.length === 0 && p.repeat(folded.length / p.length) === folded);
}

/** Why a management token is refused, without quoting it; undefined when it is fine. */
export function managementTokenProblem(token: string): string | undefined {
  if (isPlaceholderToken(token)) return 'is a placeholder (a documented example value); make a token with `openssl rand -hex 32`';
  if (token.length < MANAGEMENT_TOKEN_MIN_LENGTH) {
    return `has ${token.length} characters; a management token needs at least ${MANAGEMENT_TOKEN_MIN_LENGTH} (make one with \`openssl rand -hex 32\`)`;
  }
  return undefined;
}
