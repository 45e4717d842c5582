/** The secrets of outgoing `auth` in the config never reach a log line. */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../../../controller/config/config-loader.js';
import { REDACTED, Redactor } from '../../../../runtime/observability/logging/redactor.js';
import { registerConfigSecrets } from '../../../../runtime/secrets/register-config-secrets.js';

const CONFIG = `
backends:
  static:
    type: streamable-http
    url: https://static.example.test/mcp
    auth: { type: bearer, token: "\${STATIC_TOKEN}" }
  machine:
    type: sse
    url: https://machine.example.test/sse
    auth: { type: oauth, grant: client_credentials, client_id: gw, client_secret: "\${MACHINE_SECRET}" }
  user:
    type: streamable-http
    url: https://user.example.test/mcp
    auth: { type: oauth }
`;

describe('registerConfigSecrets: outgoing auth', () => {
  it('registers a bearer token and an OAuth client secret from ${ENV}', () => {
    const env = { STATIC_TOKEN: 'static-bearer-0123456789', MACHINE_SECRET: 'machine-secret-0123456789' };
    const config = parseConfigText(CONFIG, { env });
    const redactor = new Redactor();
    registerConfigSecrets(config, redactor, env);
    expect(redactor.redact('static-bearer-0123456789 machine-secret-0123456789')).toBe(`${REDACTED} ${REDACTED}`);
  });

  it('registers an OAuth private key (private_key_jwt) as a whole', () => {
    const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const env = { STATIC_TOKEN: 'static-bearer-0123456789', MACHINE_SECRET: 'machine-secret-0123456789', JWT_KEY: pem };
    const text = `${CONFIG}  signer:
    type: streamable-http
    url: https://signer.example.test/mcp
    auth: { type: oauth, grant: client_credentials, client_id: gw, private_key: "\${JWT_KEY}" }
`;
    const config = parseConfigText(text, { env });
    const redactor = new Redactor();
    registerConfigSecrets(config, redactor, env);
    expect(redactor.redact(`key: ${pem}`)).toBe(`key: ${REDACTED}`);
  });

  it('refuses a bearer token too short to redact, naming its key', () => {
    const env = { STATIC_TOKEN: 'short', MACHINE_SECRET: 'machine-secret-0123456789' };
    const config = parseConfigText(CONFIG, { env });
    expect(() => registerConfigSecrets(config, new Redactor(), env)).toThrow(/backends\.static\.auth\.token/);
  });
});
