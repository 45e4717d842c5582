/**
 * A source of secret values. Lookups are synchronous because secrets are
 * resolved while the configuration is loaded, before anything is served.
 */
export interface SecretProvider {
  /** Shown in "secret not found" errors, e.g. `env` or `file:/etc/gateway/secrets.enc`. */
  readonly name: string;
  /** The value, or undefined when this provider does not have the secret. */
  get(secretName: string): string | undefined;
}
