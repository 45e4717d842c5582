/**
 * What the console shows of a config: the running file with credentials
 * redacted, what a reload would change, and the checks of the console's keys.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { redactConfigText, REDACTED_VALUE } from '../../../../controller/config/config-redaction.js';
import { changedSettings, previewConfig } from '../../../../controller/config/reload-preview.js';
import { parseConfigText } from '../../../../controller/config/config-loader.js';
import { ConfigError } from '../../../../schemas/errors.js';

describe('redactConfigText', () => {
  const text = `# the gateway
server:
  management:
    token: mgmt-secret-0123456789 # never shown
  console:
    oidc: { client_id: console, client_secret: "s3cr3t-value-0123" }
sessions:
  redis:
    url: redis://user:hunter2-password@redis:6379/0
incoming_auth:
  type: local
  tokens:
    - name: alice
      token: \${ALICE_TOKEN}
    - name: bob
      token: literal-bob-token-0123456789
backends:
  gh:
    type: stdio
    command: npx
    args: [server-github]
    env:
      GITHUB_TOKEN: secret:github
      LOG_LEVEL: plain-text-value
  api:
    type: streamable-http
    url: https://api.example.com/mcp
    headers:
      Authorization: Bearer abc.def.ghi
`;
  const out = redactConfigText(text);

  it('replaces every value that may be a credential, keeps references, comments and the rest', () => {
    for (const secret of [
      'mgmt-secret-0123456789',
      's3cr3t-value-0123',
      'hunter2-password',
      'literal-bob-token-0123456789',
      'plain-text-value',
      'abc.def.ghi',
    ]) {
      expect(out).not.toContain(secret);
    }
    expect(out).toContain('${ALICE_TOKEN}');
    expect(out).toContain('secret:github');
    expect(out).toContain('redis://user:<redacted>@redis:6379/0');
    expect(out).toContain('# the gateway');
    expect(out).toContain('client_id: console');
    expect(out).toContain('name: bob');
    expect(out).toContain('command: npx');
    expect(out.split(REDACTED_VALUE).length - 1).toBe(6);
  });

  it('the redacted text is still YAML of the same shape', () => {
    const doc = parse(out) as { backends: Record<string, unknown>; incoming_auth: { tokens: unknown[] } };
    expect(Object.keys(doc.backends)).toEqual(['gh', 'api']);
    expect(doc.incoming_auth.tokens).toHaveLength(2);
  });
});

describe('what a reload would change', () => {
  const base = parseConfigText('backends:\n  a: { type: stdio, command: x }\n  b: { type: stdio, command: y }\n');
  it('names backends added, removed, changed and the settings that differ, two levels deep', () => {
    const next = parseConfigText(
      'health: { interval_s: 5 }\nserver: { console: { enabled: false } }\nbackends:\n  a: { type: stdio, command: z }\n  c: { type: stdio, command: y }\n',
    );
    expect(previewConfig(base, () => next)).toEqual({
      valid: true,
      backends_added: ['c'],
      backends_removed: ['b'],
      backends_changed: ['a'],
      settings_changed: ['health.interval_s', 'server.console'],
      errors: [],
    });
    expect(changedSettings(base, base)).toEqual([]);
  });

  it('an invalid config is not valid, with its problems, and changes nothing', () => {
    const preview = previewConfig(base, () => parseConfigText('server: { port: lots }'));
    expect(preview.valid).toBe(false);
    expect(preview.errors[0]!.path).toBe('server.port');
    expect(preview.backends_added).toEqual([]);
  });
});

describe('config checks of the console keys', () => {
  const problems = (text: string) => {
    try {
      parseConfigText(text);
      return [];
    } catch (err) {
      return (err as ConfigError).problems.map((p) => p.path);
    }
  };
  it('roles need identities; the identity provider sign-in needs jwt or oidc', () => {
    expect(problems('server: { management: { roles: { admin: [ops] } } }')).toEqual(['server.management.roles']);
    expect(
      problems('server: { console: { oidc: { client_id: c } } }\nincoming_auth: { type: local, tokens: [{ name: a, token: aaaaaaaaaaaaaaaaaaaa }] }'),
      // Also: client authentication with neither a management token nor roles leaves the API open (issue 31).
    ).toEqual(['server.console.oidc', 'server.management']);
    expect(
      problems(
        'server: { management: { roles: { viewer: ["*"] } }, console: { oidc: { client_id: c } } }\nincoming_auth: { type: oidc, issuer: "https://idp.example", audience: "https://gw.example/mcp" }',
      ),
    ).toEqual([]);
  });
});
