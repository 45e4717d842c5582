/**
 * `gateway config validate` (the real command) prints every problem of a
 * config with its key path, line and column: unknown keys with the key they
 * most likely meant, next to the required key they left missing; a value
 * outside a list of choices as one line naming them.
 */
import { describe, it, expect } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GATEWAY_BIN, runBin } from '../../helpers/cli-run.js';

describe('config validate: typos of keys', () => {
  it('prints the unknown key with a suggestion and the missing key, each with its line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-validate-'));
    const file = join(dir, 'typos.yaml');
    writeFileSync(file, 'backends:\n  a:\n    typ: stdio\n    command: node\n  b:\n    type: stdio\n    comand: node\n');
    const r = await runBin(GATEWAY_BIN, ['config', 'validate', file]);
    expect(r.code).toBe(1);
    const lines = r.stderr.split('\n').map((l) => l.trim());
    expect(lines).toContain('- backends.a.type (line 2, column 3): is required (one of stdio, sse, streamable-http)');
    expect(lines).toContain('- backends.a.typ (line 3, column 5): unknown key; did you mean `type`?');
    expect(lines).toContain('- backends.b.command (line 5, column 3): is required');
    expect(lines).toContain('- backends.b.comand (line 7, column 5): unknown key; did you mean `command`?');
  });

  it('prints one line naming the allowed values for a value outside a list of choices', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-validate-'));
    const file = join(dir, 'choices.yaml');
    writeFileSync(
      file,
      [
        'incoming_auth:',
        '  type: jwt',
        '  issuer: https://issuer.example',
        '  jwks_uri: https://issuer.example/jwks',
        '  audience: https://gw.example/mcp',
        '  algorithms: [HS256, none]',
        // Client authentication needs a closed management API (issue 31): not what this test is about.
        'server: { management: { open: true } }',
        '',
      ].join('\n'),
    );
    const r = await runBin(GATEWAY_BIN, ['config', 'validate', file]);
    expect(r.code).toBe(1);
    const problems = r.stderr
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.startsWith('- '));
    const allowed = 'RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA';
    expect(problems).toEqual([
      `- incoming_auth.algorithms.0 (line 6, column 16): must be one of: ${allowed} (got "HS256")`,
      `- incoming_auth.algorithms.1 (line 6, column 23): must be one of: ${allowed} (got "none")`,
    ]);
  });
});
