/**
 * Issue 31, item 8: gateway-client against a gateway whose /mcp requires a
 * client token (`incoming_auth: local`, policies on). `prompts get`,
 * `tools call` and `resources read` work with the management token alone
 * (the management API serves them, POST /prompts/get included); with an MCP
 * token (`--mcp-token`, GATEWAY_MCP_TOKEN) they go over /mcp as that client,
 * whose policies apply; a 401 from either side is an authentication problem
 * (exit 4, naming the token that is wanted), never "cannot reach" (exit 3).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway-harness.js';
import { stdioFixture } from '../../fixtures/fixture-backend.js';
import { CLIENT_BIN, runBin, type Finished } from '../../helpers/cli-run.js';
import { waitFor } from '../../helpers/wait.js';

const MGMT = 'cli-auth-management-token-0123456789abcdef';
const DEV = 'cli-auth-dev-token-0123456789';

describe('gateway-client under client authentication', () => {
  let h: Harness;
  let env: NodeJS.ProcessEnv;
  const client = (args: string[], extra: NodeJS.ProcessEnv = {}): Promise<Finished> =>
    runBin(CLIENT_BIN, ['-s', h.url, '-o', 'json', ...args], { env: { ...env, ...extra }, timeoutMs: 60_000 });

  beforeAll(async () => {
    h = await startGateway({
      server: { host: '127.0.0.1', port: 0, management: { token: MGMT } },
      audit: { enabled: true },
      backends: { fx: stdioFixture(['--name', 'fx']) },
      incoming_auth: { type: 'local', tokens: [{ name: 'dev-bot', token: DEV, roles: ['dev'] }] },
      // dev may use fx_echo, the greet prompt and the info resource, nothing else.
      authorization: {
        enabled: true,
        default_effect: 'deny',
        policies: [{ effect: 'allow', roles: ['dev'], resources: ['tool:fx_echo', 'prompt:fx_greet', 'resource:fixture://fx/info'] }],
      },
    });
    env = { GATEWAY_STATE_DIR: join(h.dir, 'state'), GATEWAY_URL: '', GATEWAY_MGMT_TOKEN: MGMT, GATEWAY_MCP_TOKEN: '' };
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('prompts get, tools call and resources read work with the management token alone', async () => {
    const prompt = await client(['prompts', 'get', 'fx_greet', '--arg', 'name=alice']);
    expect(prompt.code, prompt.stderr).toBe(0);
    expect(JSON.parse(prompt.stdout)).toMatchObject({
      prompt: 'fx_greet',
      backend: 'fx',
      messages: [{ role: 'user', content: { text: 'Hello alice from fx' } }],
    });
    // The management caller is not limited by the policies: fx_add is not dev's, and still answers.
    const add = await client(['tools', 'call', 'fx_add', '--arg', 'a=2', '--arg', 'b=3']);
    expect(add.code, add.stderr).toBe(0);
    expect(JSON.parse(add.stdout).content[0].text).toBe('5');
    const read = await client(['resources', 'read', 'fixture://fx/info']);
    expect(read.code, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout).contents[0].text).toBe('info from fx');
  }, 120_000);

  it('with --mcp-token they go over /mcp as that client: its policies apply and the audit names it', async () => {
    const echo = await client(['tools', 'call', 'fx_echo', '--arg', 'text=as dev', '--mcp-token', DEV], { GATEWAY_MGMT_TOKEN: '' });
    expect(echo.code, echo.stderr).toBe(0);
    expect(JSON.parse(echo.stdout)).toMatchObject({ tool: 'fx_echo', isError: false, content: [{ type: 'text' }] });
    expect(JSON.parse(echo.stdout).content[0].text).toContain('as dev');
    // Not dev's tool: over /mcp it does not exist for this caller (the server's error, exit 1).
    const add = await client(['tools', 'call', 'fx_add', '--arg', 'a=2', '--arg', 'b=3', '--mcp-token', DEV]);
    expect(add.code).toBe(1);
    expect(add.stderr).toMatch(/fx_add/);
    // The environment variable does the same; prompts and resources too.
    const prompt = await client(['-o', 'table', 'prompts', 'get', 'fx_greet', '--arg', 'name=bob'], { GATEWAY_MCP_TOKEN: DEV, GATEWAY_MGMT_TOKEN: '' });
    expect(prompt.code, prompt.stderr).toBe(0);
    expect(prompt.stdout).toContain('Hello bob from fx');
    const read = await client(['resources', 'read', 'fixture://fx/info'], { GATEWAY_MCP_TOKEN: DEV, GATEWAY_MGMT_TOKEN: '' });
    expect(read.code, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout).contents[0]).toMatchObject({ uri: 'fixture://fx/info', text: 'info from fx' });
    // The audit record of the /mcp call names the client; the management call's says `management`.
    const audit = join(h.dir, 'audit.jsonl');
    const records = () =>
      readFileSync(audit, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { source: { user_id?: string; session_id: string }; target?: { capability_name?: string } });
    await waitFor(() => records().some((r) => r.source.user_id === 'dev-bot' && r.target?.capability_name === 'fx_echo'), 'the audit record of the /mcp call');
    expect(records().some((r) => r.source.session_id === 'management' && r.target?.capability_name === 'fx_add')).toBe(true);
  }, 120_000);

  it('a 401 is an authentication problem (exit 4, the token wanted), not "cannot reach" (exit 3)', async () => {
    for (const args of [
      ['prompts', 'get', 'fx_greet', '--arg', 'name=x', '--mcp-token', 'not-a-token-0123456789'],
      ['tools', 'call', 'fx_echo', '--arg', 'text=x', '--mcp-token', 'not-a-token-0123456789'],
    ]) {
      const refused = await client(args);
      expect(refused.code, refused.stderr).toBe(4);
      expect(refused.stderr).toMatch(/Authentication failed \(401/);
      expect(refused.stderr).toContain('--mcp-token TOKEN, or GATEWAY_MCP_TOKEN');
      expect(refused.stderr).not.toMatch(/Cannot reach|Is it running/);
      expect(refused.stderr).not.toContain('not-a-token-0123456789');
    }
    const noManagementToken = await client(['prompts', 'get', 'fx_greet', '--arg', 'name=x'], { GATEWAY_MGMT_TOKEN: '' });
    expect(noManagementToken.code).toBe(4);
    expect(noManagementToken.stderr).toContain('-t TOKEN, or GATEWAY_MGMT_TOKEN');
    // Nothing listening is still exit 3.
    const gone = await runBin(CLIENT_BIN, ['-s', 'http://127.0.0.1:1', 'prompts', 'get', 'fx_greet', '--mcp-token', DEV], { env });
    expect(gone.code).toBe(3);
    expect(gone.stderr).toMatch(/Cannot reach the gateway/);
  }, 120_000);
});
