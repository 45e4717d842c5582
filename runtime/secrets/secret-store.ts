/**
 * Resolves `secret:<name>` references in configuration strings.
 *
 * Every value handed out is first registered with the redactor, so a secret
 * can never reach a log line before it is known to the redactor.
 */
import { mapStrings } from '../map-strings.js';
import { SecretTooShortError, type Redactor } from '../observability/logging/redactor.js';
import { SecretNotFoundError } from './errors.js';
import type { SecretProvider } from './secret-provider.js';

/** A reference may sit anywhere in a string, e.g. `Bearer secret:API_TOKEN`. */
const SECRET_REFERENCE = /secret:([A-Za-z0-9_.-]+)/g;
const ANY_REFERENCE = /secret:[A-Za-z0-9_.-]/;
const REFERENCE_MARKER = 'secret:';

export class SecretStore {
  constructor(
    private readonly providers: readonly SecretProvider[],
    private readonly redactor: Redactor,
  ) {}

  /** The value from the first provider that has `name`. */
  resolve(name: string): string {
    for (const provider of this.providers) {
      const value = provider.get(name);
      if (value === undefined) continue;
      this.register(name, value);
      return value;
    }
    throw new SecretNotFoundError(
      name,
      this.providers.map((p) => p.name),
    );
  }

  /** `s` with every `secret:<name>` replaced by its value. */
  resolveString(s: string): string {
    // Most config strings hold no reference; skip the regex for them.
    if (!s.includes(REFERENCE_MARKER)) return s;
    return s.replace(SECRET_REFERENCE, (_match, name: string) => this.resolve(name));
  }

  /** A copy of `value` with resolveString applied to every string inside (objects and arrays, recursively). */
  resolveDeep<T>(value: T): T {
    return mapStrings(value, (s) => this.resolveString(s)) as T;
  }

  /** Whether `s` contains a secret reference (e.g. to decide if a config string is sensitive). */
  static hasReference(s: string): boolean {
    return ANY_REFERENCE.test(s);
  }

  private register(name: string, value: string): void {
    try {
      this.redactor.register(value);
    } catch (err) {
      // Re-throw with the secret's name so the operator knows which one to fix.
      if (err instanceof SecretTooShortError) throw new SecretTooShortError(err.length, name);
      throw err;
    }
  }
}
