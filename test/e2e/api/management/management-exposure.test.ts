/**
 * Issue 31, item 1: a gateway whose MCP side requires identities does not
 * serve an open management API. With `incoming_auth: local` and
 * `authorization.enabled: true` and no management token, `gateway server`
 * refuses to start (exit 1, a message naming both ways out); with
 * `server.management.open: true` it starts and the API is open; a reload
 * that would create that state is refused and the running config stays.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { GATEWAY_BIN, runBin } from '../../../helpers/cli-run.js';
import { startGatewayCli, type GatewayProcess } from '../../../helpers/gateway-cli.js';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { managementClient } from '../../../helpers/management-client.js';
import { stdioFixture } from '../../../fixtures/fixture-backend.js';

const CLIENT_TOKEN = 'dev-token-0123456789abcdef';

const clientAuth = {
  incoming_auth: { type: 'local', tokens: [{ name: 'dev-bot', token: CLIENT_TOKEN, roles: ['dev'] }] },
  authorization: { enabled: true, default_effect: 'deny', policies: [{ effect: 'allow', roles: ['dev'], resources: ['tool:fx_echo'] }] },
};

function configFile(config: Record<string, unknown>): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gw-exposure-'));
  const file = join(dir, 'config.yaml');
  writeFileSync(file, stringify({ audit: { file: join(dir, 'audit.jsonl') }, containers: { enabled: false }, ...config }));
  return { dir, file };
}

// No token from the test runner's environment: the check reads GATEWAY_MGMT_TOKEN too.
const env = (dir: string) => ({ ...process.env, GATEWAY_MGMT_TOKEN: '', GATEWAY_STATE_DIR: join(dir, 'state') });

describe('client authentication on, no management token', () => {
  const running: GatewayProcess[] = [];
  let harness: Harness | undefined;
  afterAll(async () => {
    await Promise.all(running.map((g) => g.stop()));
    await harness?.close();
  });

  it('`gateway server` refuses to start, naming the token and `server.management.open`', async () => {
    const { dir, file } = configFile({ server: { host: '127.0.0.1', port: 0 }, backends: { fx: stdioFixture(['--name', 'fx']) }, ...clientAuth });
    const run = await runBin(GATEWAY_BIN, ['server', '--config', file], { env: env(dir), timeoutMs: 60_000 });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stderr).toContain('server.management');
    expect(run.stderr).toContain('`incoming_auth.type: local`');
    expect(run.stderr).toContain('`authorization.enabled: true`');
    expect(run.stderr).toContain('GATEWAY_MGMT_TOKEN');
    expect(run.stderr).toContain('`server.management.open: true`');
    expect(run.stdout).not.toContain('is listening');
    // Either setting alone is enough to refuse: policies without client authentication, and the other way round.
    for (const only of [{ authorization: clientAuth.authorization }, { incoming_auth: clientAuth.incoming_auth }]) {
      const one = configFile({ server: { host: '127.0.0.1', port: 0 }, ...only });
      const r = await runBin(GATEWAY_BIN, ['server', '--config', one.file], { env: env(one.dir), timeoutMs: 60_000 });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain('server.management.open: true');
    }
    // `gateway config validate` says the same before a deployment.
    const validate = await runBin(GATEWAY_BIN, ['config', 'validate', file], { env: env(dir), timeoutMs: 60_000 });
    expect(validate.code).not.toBe(0);
    expect(validate.stdout + validate.stderr).toContain('server.management.open: true');
  }, 120_000);

  it('with `server.management.open: true` it starts, and the management API is open while /mcp wants a token', async () => {
    const { dir, file } = configFile({
      server: { host: '127.0.0.1', port: 0, management: { open: true } },
      backends: { fx: stdioFixture(['--name', 'fx']) },
      ...clientAuth,
    });
    const gw = await startGatewayCli({ args: ['--config', file], cwd: dir, env: env(dir) });
    running.push(gw);
    const api = managementClient(gw.url);
    const call = await api.post('/tools/call', { tool: 'fx_echo', arguments: { text: 'open' } }, { token: null });
    expect(call.status, call.text).toBe(200);
    expect(call.body.content[0].text).toContain('open');
    const mcp = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(mcp.status).toBe(401);
  });

  it('a reload that turns client authentication on without a token is refused; the running config stays', async () => {
    const previous = process.env.GATEWAY_MGMT_TOKEN;
    delete process.env.GATEWAY_MGMT_TOKEN;
    try {
      harness = await startGateway({ feature_flags: { hot_reload: true }, backends: { fx: stdioFixture(['--name', 'fx']) } });
      const h = harness;
      const api = managementClient(h.url);
      const base = {
        server: { host: '127.0.0.1', port: 0 },
        audit: { file: join(h.dir, 'audit.jsonl') },
        containers: { enabled: false },
        feature_flags: { hot_reload: true },
      };
      h.writeConfig({ ...base, backends: { fx: stdioFixture(['--name', 'fx']) }, ...clientAuth });
      const reload = await api.post('/reload', undefined, { token: null });
      expect(reload.status, reload.text).toBe(200);
      expect(reload.body.reloaded).toBe(false);
      expect(JSON.stringify(reload.body.errors)).toContain('server.management.open: true');
      // Still anonymous: a client without a token is served, and the API stays as it was.
      const client = await h.connect();
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('fx_echo');
      expect(h.gateway.controller.config.incoming_auth.type).toBe('anonymous');
      // With the way out written down, the same reload goes through.
      h.writeConfig({ ...base, server: { ...base.server, management: { open: true } }, backends: { fx: stdioFixture(['--name', 'fx']) }, ...clientAuth });
      const accepted = await api.post('/reload', undefined, { token: null });
      expect(accepted.body.reloaded, accepted.text).toBe(true);
      expect(h.gateway.controller.config.incoming_auth.type).toBe('local');
    } finally {
      if (previous !== undefined) process.env.GATEWAY_MGMT_TOKEN = previous;
    }
  });
});
