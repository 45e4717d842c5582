/**
 * Errors of the secret subsystem. They are configuration problems (a
 * reference to an unknown secret, a missing key, an unreadable secrets file),
 * so they carry the `config_invalid` code. None of them ever includes a
 * secret value in its message.
 */
import { GatewayError } from '../../schemas/errors.js';

export class SecretNotFoundError extends GatewayError {
  readonly secretName: string;

  constructor(secretName: string, providers: readonly string[]) {
    super('config_invalid', `Secret not found: ${secretName} (looked in: ${providers.join(', ') || 'no providers'})`, {
      secret: secretName,
      providers: [...providers],
    });
    this.secretName = secretName;
  }
}

/** GATEWAY_SECRETS_KEY is missing or is not 32 bytes of hex or base64. */
export class SecretsKeyError extends GatewayError {
  constructor(message: string) {
    super('config_invalid', message);
  }
}

/** The encrypted secrets file is unreadable, malformed, or fails authentication (wrong key or tampered). */
export class SecretsFileError extends GatewayError {
  constructor(file: string, reason: string, cause?: unknown) {
    super('config_invalid', `Secrets file ${file}: ${reason}`, { file }, { cause });
  }
}
