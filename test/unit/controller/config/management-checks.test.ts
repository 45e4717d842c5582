/**
 * The management token rules and the open-API check (issue 31, items 1 and
 * 4): a token shorter than 32 characters or a documented placeholder is
 * refused wherever it comes from; client authentication without a token
 * needs `server.management.open: true`. The messages never quote a token.
 */
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../../../controller/config/config-loader.js';
import { configProblems } from '../../../helpers/config-problems.js';
import { PLACEHOLDER_TOKENS, isPlaceholderToken, MANAGEMENT_TOKEN_MIN_LENGTH } from '../../../../schemas/management-token.js';

const GOOD = '3f9c1a7e5b2d4f6081a3c5e7f9b1d3a5';

const problems = configProblems;

const withToken = (token: string) => `server: { management: { token: ${JSON.stringify(token)} } }`;
const LOCAL = 'incoming_auth: { type: local, tokens: [{ name: a, token: "client-token-0123456789" }] }';

describe('management token rules', () => {
  it('accepts a long random token from the file or the environment', () => {
    expect(GOOD.length).toBe(MANAGEMENT_TOKEN_MIN_LENGTH);
    expect(problems(withToken(GOOD))).toEqual([]);
    expect(problems('{}', { GATEWAY_MGMT_TOKEN: GOOD })).toEqual([]);
  });

  it('refuses a short token, saying how long it is and never what it is', () => {
    const short = 'abcdef0123456789abcdef012345678';
    const [problem, ...rest] = problems(withToken(short));
    expect(rest).toEqual([]);
    expect(problem).toBe('server.management.token: has 31 characters; a management token needs at least 32 (make one with `openssl rand -hex 32`)');
    expect(problems('{}', { GATEWAY_MGMT_TOKEN: short })).toEqual([
      'server.management.token: (GATEWAY_MGMT_TOKEN) has 31 characters; a management token needs at least 32 (make one with `openssl rand -hex 32`)',
    ]);
  });

  it('refuses every documented placeholder, in any case and spelling, and repetitions of one', () => {
    for (const placeholder of PLACEHOLDER_TOKENS) {
      expect(problems(withToken(placeholder)), placeholder).toEqual([
        'server.management.token: is a placeholder (a documented example value); make a token with `openssl rand -hex 32`',
      ]);
    }
    expect(PLACEHOLDER_TOKENS).toContain('replace-with-a-long-random-token');
    expect(PLACEHOLDER_TOKENS).toContain('changeme');
    for (const spelled of ['REPLACE_WITH_A_LONG_RANDOM_TOKEN', 'Change-Me', 'changemechangemechangemechangeme', 'x'.repeat(40), '0'.repeat(64)]) {
      expect(isPlaceholderToken(spelled), spelled).toBe(true);
    }
    expect(isPlaceholderToken(GOOD)).toBe(false);
    // The environment wins, so a placeholder there is refused although the file's token is fine.
    expect(problems(withToken(GOOD), { GATEWAY_MGMT_TOKEN: 'replace-with-a-long-random-token' })).toHaveLength(1);
  });
});

describe('client authentication without a management token', () => {
  it('is refused, naming what turns it on and both ways out', () => {
    expect(problems(LOCAL)).toEqual([
      'server.management: no management token, while MCP clients must authenticate (`incoming_auth.type: local`): the management API (POST /manage/v1/tools/call, /reload, …) would be open to anyone who reaches the port. Set a management token (GATEWAY_MGMT_TOKEN, or `server.management.token`), or, on a trusted network only, `server.management.open: true`',
    ]);
    // `${VAR}` gives a string: "true" turns the policies on as well.
    expect(problems('authorization: { enabled: "${ON}" }', { ON: 'true' })[0]).toMatch(/`authorization\.enabled: true`/);
  });

  it('passes with a token, or with server.management.open: true; anonymous needs neither', () => {
    expect(problems(`${LOCAL}\n${withToken(GOOD)}`)).toEqual([]);
    expect(problems(LOCAL, { GATEWAY_MGMT_TOKEN: GOOD })).toEqual([]);
    expect(problems(`${LOCAL}\nserver: { management: { open: true } }`)).toEqual([]);
    expect(problems('incoming_auth: { type: anonymous }\nauthorization: { enabled: false }')).toEqual([]);
    expect(parseConfigText('{}', { env: {} }).server.management.open).toBe(false);
  });
});

describe('server.management.port', () => {
  it('must differ from server.port; `host` needs `port`', () => {
    expect(problems(`server: { port: 9100, management: { token: ${JSON.stringify(GOOD)}, port: 9100 } }`)).toEqual([
      'server.management.port: is the MCP port (server.port: 9100); the management listener needs a port of its own',
    ]);
    expect(problems(`server: { management: { token: ${JSON.stringify(GOOD)}, port: 9000 } }`)).toHaveLength(1);
    expect(problems(`server: { management: { token: ${JSON.stringify(GOOD)}, host: 127.0.0.1 } }`)).toEqual([
      'server.management.host: applies to the management listener of `server.management.port`, which is not set',
    ]);
    expect(problems(`server: { port: 0, management: { token: ${JSON.stringify(GOOD)}, port: 0, host: 127.0.0.1 } }`)).toEqual([]);
    expect(problems(`server: { management: { token: ${JSON.stringify(GOOD)}, port: 9001 } }`)).toEqual([]);
  });
});
