/**
 * Replaces every registered secret value with `[REDACTED]`.
 *
 * Each gateway has its own, made by the composition root and handed to
 * everything that writes text out (loggers, the audit log, the management
 * API); secrets are registered with it as the secret store resolves them, so
 * two gateways in one process do not share one growing set. Loggers apply it
 * to each final serialized line, which is why the JSON-escaped spellings of a
 * secret are matched as well as the raw one.
 */
import { GatewayError } from '../../../schemas/errors.js';

/** Shorter values would redact ordinary words and numbers all over the logs. */
export const MIN_SECRET_LENGTH = 8;

export const REDACTED = '[REDACTED]';

/**
 * How many levels of JSON string escaping are matched. Level 1 is a secret
 * inside a log line; level 2 is a secret inside a JSON document that was
 * logged as a string field (e.g. a request body).
 */
const MAX_ESCAPE_DEPTH = 2;

export class SecretTooShortError extends GatewayError {
  readonly length: number;
  readonly secretName?: string;

  constructor(length: number, secretName?: string) {
    // Never include the value itself: this message is logged.
    const subject = secretName === undefined ? 'A secret value' : `Secret '${secretName}'`;
    super(
      'config_invalid',
      `${subject} is ${length} characters long; secrets must have at least ${MIN_SECRET_LENGTH} characters so they can be redacted from logs`,
      { min_length: MIN_SECRET_LENGTH, ...(secretName === undefined ? {} : { secret: secretName }) },
    );
    this.length = length;
    this.secretName = secretName;
  }
}

export class Redactor {
  private readonly secrets = new Set<string>();
  /** Rebuilt lazily on the first redact() after a register(), so bulk registration stays linear. */
  private pattern: RegExp | null = null;
  private dirty = false;

  /** Idempotent: registering the same value twice is a no-op. */
  register(value: string): void {
    if (value.length < MIN_SECRET_LENGTH) throw new SecretTooShortError(value.length);
    if (this.secrets.has(value)) return;
    this.secrets.add(value);
    this.dirty = true;
  }

  /**
   * Drops a value that is no longer a secret anywhere, such as an OAuth
   * access token that a refresh replaced: otherwise the set, and the pattern
   * every log line is matched against, would grow with each refresh.
   */
  unregister(value: string): void {
    if (this.secrets.delete(value)) this.dirty = true;
  }

  get size(): number {
    return this.secrets.size;
  }

  get hasSecrets(): boolean {
    return this.secrets.size > 0;
  }

  redact(text: string): string {
    // Hot path for every log line: nothing registered means nothing to do.
    if (this.secrets.size === 0) return text;
    const pattern = this.currentPattern();
    // `replace` with a global RegExp resets lastIndex itself, so sharing the instance is safe.
    return text.replace(pattern, REDACTED);
  }

  /** For tests and shutdown; the process-wide instance is otherwise append-only. */
  clear(): void {
    this.secrets.clear();
    this.pattern = null;
    this.dirty = false;
  }

  private currentPattern(): RegExp {
    if (this.pattern === null || this.dirty) {
      this.pattern = buildPattern(this.secrets);
      this.dirty = false;
    }
    return this.pattern;
  }
}

function buildPattern(secrets: Iterable<string>): RegExp {
  const forms = new Set<string>();
  for (const secret of secrets) {
    let form = secret;
    forms.add(form);
    for (let depth = 1; depth <= MAX_ESCAPE_DEPTH; depth++) {
      form = jsonEscape(form);
      forms.add(form);
    }
  }
  // Longest first: when one secret contains another, the longer one must win
  // or its remainder would be left in clear text next to the marker.
  const alternatives = [...forms].sort((a, b) => b.length - a.length).map(escapeRegExp);
  return new RegExp(alternatives.join('|'), 'g');
}

/** The text of `value` as it appears between the quotes of a JSON string. */
function jsonEscape(value: string): string {
  return JSON.stringify(value).slice(1, -1);
}

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
