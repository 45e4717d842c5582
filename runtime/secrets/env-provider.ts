import type { SecretProvider } from './secret-provider.js';

/** Secrets from environment variables: `secret:GITHUB_TOKEN` reads `$GITHUB_TOKEN`. */
export class EnvSecretProvider implements SecretProvider {
  readonly name = 'env';

  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  get(secretName: string): string | undefined {
    const value = this.env[secretName];
    // `FOO=` in a shell or .env file means "unset"; let the next provider answer.
    return value === undefined || value === '' ? undefined : value;
  }
}
