/**
 * Step 1 of start-up: locate, parse, expand `${ENV}`, resolve `secret:` and
 * validate the config, registering every credential it carries with the
 * gateway's redactor before anything can log it.
 */
import { loadConfigFile, locateConfigFile, type LoadedConfig, type SecretResolver } from '../controller/config/config-loader.js';
import type { Redactor } from '../runtime/observability/logging/redactor.js';
import { SecretStore } from '../runtime/secrets/secret-store.js';
import { EnvSecretProvider } from '../runtime/secrets/env-provider.js';
import { EncryptedFileSecretProvider } from '../runtime/secrets/encrypted-file-provider.js';
import { registerConfigSecrets } from '../runtime/secrets/register-config-secrets.js';

export interface ConfigLoad {
  loaded: LoadedConfig;
  /** Resolves `secret:` references again on every reload. */
  resolveSecrets: SecretResolver;
}

export function loadConfig(configPath: string | undefined, redactor: Redactor): ConfigLoad {
  const secrets = createSecretStore(redactor);
  const resolveSecrets = (value: string) => secrets.resolveString(value);
  const loaded = loadConfigFile(locateConfigFile(configPath), { resolveSecrets });
  registerConfigSecrets(loaded.config, redactor);
  return { loaded, resolveSecrets };
}

/** Environment variables, then the encrypted file named by GATEWAY_SECRETS_FILE. */
function createSecretStore(redactor: Redactor): SecretStore {
  const providers = [new EnvSecretProvider()];
  const file = process.env.GATEWAY_SECRETS_FILE;
  return new SecretStore(file ? [...providers, new EncryptedFileSecretProvider(file)] : providers, redactor);
}
