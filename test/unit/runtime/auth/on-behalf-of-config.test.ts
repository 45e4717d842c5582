/**
 * `auth.on_behalf_of` in the config: an HTTP backend may act for each user
 * (token exchange, per-user OAuth); a stdio backend cannot, and the error
 * says why; an exchange needs a token endpoint or an issuer to find one; the
 * client secret is redacted like every other credential.
 */
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../../../controller/config/config-loader.js';
import { configProblems } from '../../../helpers/config-problems.js';
import { STDIO_ON_BEHALF_OF } from '../../../../schemas/config.js';
import { REDACTED, Redactor } from '../../../../runtime/observability/logging/redactor.js';
import { registerConfigSecrets } from '../../../../runtime/secrets/register-config-secrets.js';

const problems = configProblems;

const EXCHANGE = `
backends:
  github:
    type: streamable-http
    url: https://github-mcp.example.test/mcp
    auth:
      on_behalf_of:
        type: token_exchange
        issuer: https://idp.example.test
        client_id: mcp-gateway
        client_secret: "\${EXCHANGE_SECRET}"
        audience: https://github-mcp.example.test
        scopes: [repo]
  jira:
    type: streamable-http
    url: https://jira.example.test/mcp
    auth: { on_behalf_of: { type: user_oauth, issuer: "https://auth.jira.example.test", scopes: [read] } }
`;

describe('auth.on_behalf_of', () => {
  it('accepts a token exchange and a per-user OAuth on HTTP backends', () => {
    const config = parseConfigText(EXCHANGE, { env: { EXCHANGE_SECRET: 'exchange-secret-0123456789' } });
    const github = config.backends.github;
    expect(github.type !== 'stdio' && github.auth).toEqual({
      on_behalf_of: {
        type: 'token_exchange',
        issuer: 'https://idp.example.test',
        client_id: 'mcp-gateway',
        client_secret: 'exchange-secret-0123456789',
        audience: 'https://github-mcp.example.test',
        scopes: ['repo'],
      },
    });
  });

  it('refuses it on an SSE backend, saying why: one set of headers for every caller', () => {
    const sse =
      'backends:\n  j:\n    type: sse\n    url: https://j.example.test/sse\n    auth: { on_behalf_of: { type: user_oauth, issuer: "https://a.example.test" } }\n';
    expect(() => parseConfigText(sse, { env: {} })).toThrow(/backends\.j\.auth\.on_behalf_of.*needs a streamable-http backend/s);
  });

  it('refuses it on a stdio backend, saying why', () => {
    const yaml = `
backends:
  local:
    type: stdio
    command: npx
    auth: { on_behalf_of: { type: token_exchange, token_endpoint: "https://idp.test/token", client_id: a, client_secret: b, audience: c } }
`;
    expect(problems(yaml)).toEqual([`backends.local.auth: ${STDIO_ON_BEHALF_OF}`]);
    expect(STDIO_ON_BEHALF_OF).toMatch(/one process shared by every caller/);
  });

  it('needs a token endpoint or an issuer, a client and an audience', () => {
    const yaml = `
backends:
  x:
    type: streamable-http
    url: https://x.test/mcp
    auth: { on_behalf_of: { type: token_exchange, client_id: a, client_secret: b, audience: c } }
`;
    expect(problems(yaml)).toEqual(['backends.x.auth.on_behalf_of: needs `token_endpoint`, or `issuer` to find it by discovery']);
    const noAudience = yaml.replace(', audience: c', ', token_endpoint: "https://idp.test/token"');
    expect(problems(noAudience).join('\n')).toMatch(/backends\.x\.auth/);
  });

  it('redacts the exchange client secret', () => {
    const env = { EXCHANGE_SECRET: 'exchange-secret-0123456789' };
    const config = parseConfigText(EXCHANGE, { env });
    const redactor = new Redactor();
    registerConfigSecrets(config, redactor, env);
    expect(redactor.redact('secret=exchange-secret-0123456789')).toBe(`secret=${REDACTED}`);
  });
});
