/**
 * Outgoing OAuth through the whole gateway, as a user meets it: a backend
 * configured with nothing but `auth: { type: oauth }` is parked as Failed
 * (Authenticated=false, AuthorizationRequired) without a retry loop;
 * `gateway-client reauth` (POST /reauth) gives the authorization URL, the
 * user consents in a real browser, the backend reconnects by itself and its
 * tools work; a restart reuses the stored token; a revoked refresh token after
 * expiry parks it again.
 */
import { mkdtempSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../../helpers/gateway-harness.js';
import { managementClient } from '../../../helpers/management-client.js';
import { authorizeInBrowser, launchChromium, type HeadlessBrowser } from '../../../helpers/chromium.js';
import { startOAuthEnv, type OAuthEnv } from '../../../fixtures/oauth-env.js';
import { CLIENT_BIN } from '../../../helpers/cli-run.js';
import { waitFor } from '../../../helpers/wait.js';

const condition = (h: Harness, type: string) => h.gateway.controller.backendRecord('secure')?.conditions.find((c) => c.type === type);

describe('OAuth-protected backend through the gateway', () => {
  let env: OAuthEnv;
  let browser: HeadlessBrowser;
  let h: Harness | undefined;
  const previousState = process.env.GATEWAY_STATE_DIR;

  const config = () => ({
    controller: { backoff_initial_ms: 100, backoff_max_ms: 400 },
    health: { interval_s: 3600 },
    backends: { secure: { type: 'streamable-http', url: env.server.mcpUrl, auth: { type: 'oauth' } } },
  });

  beforeAll(async () => {
    // Tokens live in <state>/tokens: a state folder of this file's own.
    process.env.GATEWAY_STATE_DIR = mkdtempSync(join(tmpdir(), 'gw-oauth-state-'));
    env = await startOAuthEnv({ accessTokenTtlS: 300 });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await h?.close();
    await browser?.close();
    await env?.close();
    process.env.GATEWAY_STATE_DIR = previousState;
  });

  it('without authorization: Failed, Authenticated=false / AuthorizationRequired, and no retry loop', async () => {
    h = await startGateway(config());
    const record = h.gateway.controller.backendRecord('secure')!;
    expect(record.phase).toBe('Failed');
    expect(condition(h, 'Authenticated')).toMatchObject({ status: false, reason: 'AuthorizationRequired' });
    expect(condition(h, 'Ready')).toMatchObject({ status: false, reason: 'AuthorizationRequired' });
    expect(record.error).toContain('gateway-client reauth secure');
    // Backoff here is 100 ms: a loop would have tried many times by now.
    await new Promise((r) => setTimeout(r, 1500));
    const attempts = h.gateway.events.list().filter((e) => e.backend === 'secure' && e.stage === 'connecting');
    expect(attempts).toHaveLength(1);
    expect(h.gateway.events.list().some((e) => e.backend === 'secure' && e.stage === 'retry_scheduled')).toBe(false);
  });

  it('gateway-client reauth prints the URL and waits; consent in the browser reconnects the backend by itself', async () => {
    const gw = h!;
    const api = managementClient(gw.url);
    const cli = spawn(process.execPath, [CLIENT_BIN, '-s', gw.url, 'reauth', 'secure', '--no-browser', '--timeout', '60'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    cli.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    cli.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    const exited = new Promise<number | null>((resolve) => cli.once('exit', resolve));
    const url = await waitFor(
      () => /(http:\/\/\S+\/auth\S*)/.exec(err + out)?.[1],
      `the authorization URL on gateway-client's output (stdout: ${out} stderr: ${err})`,
      30_000,
    );
    // A second request while the flow is pending gets the same URL.
    const again = await api.post('/reauth/secure');
    expect(again.body).toMatchObject({ name: 'secure', reauth_initiated: true, error: null, authorization_url: url });
    const redirect = new URL(url).searchParams.get('redirect_uri')!;
    const page = await authorizeInBrowser(browser, url, redirect);
    expect(page.status).toBe(200);
    expect(await exited, `stdout: ${out}\nstderr: ${err}`).toBe(0);
    await gw.waitForEvent((e) => e.backend === 'secure' && e.stage === 'reauthenticated');
    await waitFor(() => gw.gateway.controller.backendRecord('secure')?.phase === 'Ready', 'secure to be Ready');
    expect(condition(gw, 'Authenticated')).toMatchObject({ status: true, reason: 'Authorized' });
    const client = await gw.connect();
    const me = JSON.parse(((await client.callTool({ name: 'secure_whoami', arguments: {} })) as { content: Array<{ text: string }> }).content[0]!.text) as {
      scopes: string[];
    };
    expect(me.scopes).toContain('mcp:tools');
  });

  it('a restart reuses the stored token: Ready without a browser', async () => {
    await h!.close();
    h = await startGateway(config());
    expect(h.gateway.controller.backendRecord('secure')!.phase).toBe('Ready');
    const client = await h.connect();
    expect(((await client.callTool({ name: 'secure_whoami', arguments: {} })) as { isError?: boolean }).isError).toBeFalsy();
  });

  it('a call that needs more scope: the backend stays Ready, the operator sees InsufficientScope and an event, reauth asks for the union (issue 28)', async () => {
    const gw = h!;
    const client = await gw.connect();
    const denied = await client.callTool({ name: 'secure_admin_echo', arguments: { text: 'hi' } }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(denied?.message).toMatch(/needs authorization .*mcp:admin.*gateway-client reauth secure/);
    await waitFor(() => condition(gw, 'Authenticated')?.reason === 'InsufficientScope', 'the InsufficientScope condition');
    const record = gw.gateway.controller.backendRecord('secure')!;
    expect(record.phase).toBe('Ready');
    expect(condition(gw, 'Authenticated')).toMatchObject({ status: false, message: expect.stringMatching(/mcp:admin.*gateway-client reauth secure/) });
    const event = await gw.waitForEvent((e) => e.backend === 'secure' && e.stage === 'authorization_required');
    expect(event).toMatchObject({ severity: 'warning', details: { scope: expect.stringContaining('mcp:admin') } });
    // What the token allows still works.
    expect(((await client.callTool({ name: 'secure_whoami', arguments: {} })) as { isError?: boolean }).isError).toBeFalsy();

    const started = await managementClient(gw.url).post('/reauth/secure');
    const url = (started.body as { authorization_url: string }).authorization_url;
    expect(new URL(url).searchParams.get('scope')!.split(' ')).toEqual(expect.arrayContaining(['mcp:tools', 'mcp:admin']));
    await authorizeInBrowser(browser, url, new URL(url).searchParams.get('redirect_uri')!);
    await gw.waitForEvent((e) => e.backend === 'secure' && e.stage === 'reauthenticated');
    await waitFor(() => condition(gw, 'Authenticated')?.status === true, 'Authenticated again');
    const after = await gw.connect();
    const echoed = (await after.callTool({ name: 'secure_admin_echo', arguments: { text: 'hi' } })) as { content: Array<{ text: string }> };
    expect(echoed.content[0]!.text).toContain('hi');
  });

  it('POST /reauth for a backend without OAuth says so; an unknown backend is 404', async () => {
    const api = managementClient(h!.url);
    expect((await api.post('/reauth/nope')).status).toBe(404);
  });
});
