/**
 * Registers the credentials a config carries with the redactor, whether or
 * not they came through `secret:` references: the management token, the console's client secret, the keys that seal `requestState`, registry
 * tokens, the local tokens of MCP clients (`incoming_auth.tokens`), backend `auth` tokens, client secrets and private keys, the password in the Redis URL, and the backend `headers`
 * and `env` values whose names mark them as credentials.
 * Registering a value too short to redact safely throws, which fails the
 * config load with a clear message instead of leaking it later.
 */
import type { GatewayConfig } from '../../schemas/config.js';
import { ConfigError } from '../../schemas/errors.js';
import { SecretTooShortError, type Redactor } from '../observability/logging/redactor.js';

/** Header and variable names that carry credentials. */
const CREDENTIAL_NAME = /(authorization|cookie|token|secret|password|passwd|api[-_]?key|access[-_]?key|private[-_]?key|credential|auth)/i;

export function registerConfigSecrets(config: GatewayConfig, redactor: Redactor, env: NodeJS.ProcessEnv = process.env): void {
  const problems: Array<{ path: string; message: string }> = [];
  const register = (path: string, value: string | undefined) => {
    if (!value) return;
    // "Bearer abc…": the scheme is not secret, the credential after it is.
    const credential = value.replace(/^(bearer|basic|token)\s+/i, '');
    try {
      redactor.register(credential);
    } catch (err) {
      if (err instanceof SecretTooShortError) problems.push({ path, message: `${err.message}; use a longer credential` });
      else throw err;
    }
  };
  register('server.management.token', config.server.management.token);
  register('GATEWAY_MGMT_TOKEN', env.GATEWAY_MGMT_TOKEN);
  register('server.console.oidc.client_secret', config.server.console.oidc?.client_secret);
  register('server.input_rounds.state_key', config.server.input_rounds.state_key);
  register('server.input_rounds.previous_state_key', config.server.input_rounds.previous_state_key);
  for (const [index, registry] of config.registries.entries()) register(`registries.${index}.token`, registry.token);
  register('sessions.redis.url', urlPassword(config.sessions.redis.url));
  for (const [index, local] of (config.incoming_auth.tokens ?? []).entries()) register(`incoming_auth.tokens.${index}.token`, local.token);
  for (const [name, spec] of Object.entries(config.backends)) {
    const auth = spec.type === 'stdio' ? undefined : spec.auth;
    if (auth?.type === 'bearer') register(`backends.${name}.auth.token`, auth.token);
    else if (auth?.type === 'oauth') {
      register(`backends.${name}.auth.client_secret`, auth.client_secret);
      register(`backends.${name}.auth.private_key`, auth.private_key);
    } else if (auth) register(`backends.${name}.auth.on_behalf_of.client_secret`, auth.on_behalf_of.client_secret);
    const maps = spec.type === 'stdio' ? { env: spec.env } : { headers: spec.headers };
    for (const [kind, map] of Object.entries(maps)) {
      for (const [key, value] of Object.entries(map ?? {})) {
        if (CREDENTIAL_NAME.test(key)) register(`backends.${name}.${kind}.${key}`, value);
      }
    }
  }
  if (problems.length > 0) {
    throw new ConfigError(`Secrets too short to redact safely:\n${problems.map((p) => `  - ${p.path}: ${p.message}`).join('\n')}`, problems);
  }
}

/** The password of a `redis://user:pass@host` URL (percent-decoded, as the client sends it). */
function urlPassword(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const password = new URL(url).password;
    return password ? decodeURIComponent(password) : undefined;
  } catch {
    return undefined;
  }
}
