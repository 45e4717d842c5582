/**
 * Outgoing OAuth with a user: a real authorization server (oidc-provider),
 * an MCP server that checks its tokens, headless Chromium for the user's
 * login and consent, and a real SDK Client through the gateway's transport.
 *
 * The tests of a describe run in order: each builds on the stored
 * authorization the previous one left (as a gateway's life does).
 */
import { once } from 'node:events';
import { mkdtempSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { BackendAuthManager } from '../../../../runtime/auth/backend-auth-manager.js';
import { AuthorizationRequiredError, findAuthorizationRequired, isAuthorizationRequired, ReauthNotSupportedError } from '../../../../runtime/auth/errors.js';
import { tokenFile } from '../../../../runtime/auth/token-store.js';
import { createLogger } from '../../../../runtime/observability/logging/logger.js';
import { REDACTED, Redactor } from '../../../../runtime/observability/logging/redactor.js';
import type { HttpBackendSpec } from '../../../../schemas/config.js';
import { authorizeInBrowser, launchChromium, type HeadlessBrowser } from '../../../helpers/chromium.js';
import { readTokenFile } from '../../../helpers/token-file.js';
import { startOAuthEnv, type OAuthEnv } from '../../../fixtures/oauth-env.js';
import { AS_PROCESS, createBackendTransport } from '../../../../runtime/transports/create-backend-transport.js';

const NAME = 'protected';

function client(): Client {
  return new Client({ name: 'oauth-test', version: '1.0.0' });
}

/** The text of a tool result's first content item. */
function textOf(result: unknown): string {
  const content = (result as { content: Array<{ type: string; text: string }> }).content;
  return content[0].text;
}

/** What connect() rejected with (it must reject). */
async function connectError(manager: BackendAuthManager, spec: HttpBackendSpec): Promise<unknown> {
  const c = client();
  try {
    await c.connect(createBackendTransport(NAME, spec, AS_PROCESS, manager));
  } catch (err) {
    await c.close();
    return err;
  }
  await c.close();
  throw new Error('connect() succeeded although authorization was expected to be required');
}

async function connected(manager: BackendAuthManager, spec: HttpBackendSpec): Promise<Client> {
  const c = client();
  await c.connect(createBackendTransport(NAME, spec, AS_PROCESS, manager));
  return c;
}

/** A logger whose (redacted) output lands in `lines`. */
function capturingLogger(redactor: Redactor, lines: string[]) {
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return createLogger({ level: 'trace', redactor, destination });
}

describe('OAuth backend: authorization code, consent in a browser', () => {
  let env: OAuthEnv;
  let browser: HeadlessBrowser;
  let dir: string;
  let redactor: Redactor;
  let logLines: string[];
  let manager: BackendAuthManager;
  let spec: HttpBackendSpec;

  beforeAll(async () => {
    env = await startOAuthEnv();
    browser = await launchChromium();
    dir = mkdtempSync(join(tmpdir(), 'gw-tokens-'));
    redactor = new Redactor();
    logLines = [];
    manager = new BackendAuthManager({ tokensDir: dir, redactor, log: capturingLogger(redactor, logLines) });
    spec = { type: 'streamable-http', url: env.server.mcpUrl, auth: { type: 'oauth' } };
  });

  afterAll(async () => {
    manager?.close();
    await browser?.close();
    await env?.close();
  });

  it('a backend that needs consent fails to connect with AuthorizationRequired, and registers no client yet', async () => {
    const err = await connectError(manager, spec);
    expect(isAuthorizationRequired(err)).toBe(true);
    const typed = findAuthorizationRequired(err);
    expect(typed).toBeInstanceOf(AuthorizationRequiredError);
    expect((typed as AuthorizationRequiredError).why).toBe('not authorized yet');
    expect((typed as AuthorizationRequiredError).message).toContain(`gateway-client reauth ${NAME}`);
    expect(env.server.stats.unauthorized).toBeGreaterThan(0);
    expect(env.as.registrations()).toHaveLength(0);
  });

  it('over SSE too, a backend that needs consent reports AuthorizationRequired', async () => {
    const sse: HttpBackendSpec = { type: 'sse', url: env.server.sseUrl, auth: { type: 'oauth' } };
    const c = client();
    const err = await c.connect(createBackendTransport('protected-sse', sse, AS_PROCESS, manager)).then(
      () => undefined,
      (e: unknown) => e,
    );
    await c.close();
    expect(findAuthorizationRequired(err)).toBeInstanceOf(AuthorizationRequiredError);
  });

  it('a flow that cannot start (backend unreachable) is refused with the reason and leaves nothing pending', async () => {
    const gone: HttpBackendSpec = { type: 'streamable-http', url: 'http://127.0.0.1:9/mcp', auth: { type: 'oauth' } };
    await expect(manager.startReauth('gone', gone)).rejects.toThrow(/fetch failed|ECONNREFUSED/);
    expect(manager.pendingReauth('gone')).toBeUndefined();
  });

  it('reauth answers at once with the authorization URL, the same one while pending; consent in the browser authorizes', async () => {
    const started = await manager.startReauth(NAME, spec);
    const url = new URL(started.authorization_url ?? '');
    expect(url.origin).toBe(env.as.issuer);
    const params = url.searchParams;
    expect(params.get('response_type')).toBe('code');
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(params.get('state')?.length).toBeGreaterThanOrEqual(32);
    expect(params.get('resource')).toBe(env.server.mcpUrl);
    // From the backend's WWW-Authenticate (its required scope), and offline_access: the server
    // offers it and the gateway's client refreshes (the SDK adds it, SEP-2207).
    expect(params.get('scope')).toBe('mcp:tools offline_access');
    const redirect = params.get('redirect_uri') ?? '';
    expect(redirect).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);

    expect((await manager.startReauth(NAME, spec)).authorization_url).toBe(started.authorization_url);
    expect(manager.pendingReauth(NAME)).toBe(started.authorization_url);

    // Dynamic registration as a public native client that may refresh.
    const [registration] = env.as.registrations();
    expect(env.as.registrations()).toHaveLength(1);
    expect(registration.client_id).toBe(params.get('client_id'));
    expect(registration.grant_types).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
    expect(registration.token_endpoint_auth_method).toBe('none');
    expect(registration.redirect_uris).toEqual([redirect]);

    const reauthenticated = once(manager, 'reauthenticated', { signal: AbortSignal.timeout(30_000) });
    const page = await authorizeInBrowser(browser, started.authorization_url ?? '', redirect);
    expect(page.status).toBe(200);
    expect(page.text).toContain('You can close this tab');
    expect(await reauthenticated).toEqual([NAME]);
    expect(manager.pendingReauth(NAME)).toBeUndefined();
    // The callback listener lived only for the flow.
    await vi.waitFor(() => expect(fetch(redirect)).rejects.toThrow(), { timeout: 5000 });

    const c = await connected(manager, spec);
    const me = JSON.parse(textOf(await c.callTool({ name: 'whoami', arguments: {} }))) as { client_id: string; scopes: string[] };
    expect(me.client_id).toBe(registration.client_id);
    expect(me.scopes).toContain('mcp:tools');
    await c.close();
  });

  it('keeps the tokens in <tokens>/<backend>.json with mode 0600, and never logs them', async () => {
    const file = tokenFile(dir, NAME);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = readTokenFile(file);
    expect(stored.server_url).toBe(env.server.mcpUrl);
    const { access_token, refresh_token } = stored.tokens ?? {};
    expect(access_token).toBeTruthy();
    expect(refresh_token).toBeTruthy();
    expect(stored.client?.client_id).toBe(env.as.registrations()[0].client_id);
    for (const token of [access_token, refresh_token]) expect(redactor.redact(`x ${token} y`)).toBe(`x ${REDACTED} y`);
    const logs = logLines.join('');
    expect(logs).toContain('OAuth authorization completed');
    expect(logs).not.toContain(access_token);
    expect(logs).not.toContain(refresh_token);
  });

  it('after a restart the stored authorization is used: no browser, no new registration', async () => {
    const restartedRedactor = new Redactor();
    const restarted = new BackendAuthManager({ tokensDir: dir, redactor: restartedRedactor });
    const c = await connected(restarted, spec);
    expect(JSON.parse(textOf(await c.callTool({ name: 'whoami', arguments: {} }))).client_id).toBe(env.as.registrations()[0].client_id);
    await c.close();
    expect(env.as.registrations()).toHaveLength(1);
    // Loading the file registered its secrets with the new process's redactor.
    const { access_token, refresh_token } = readTokenFile(tokenFile(dir, NAME)).tokens ?? {};
    expect(restartedRedactor.redact(`${access_token}|${refresh_token}`)).toBe(`${REDACTED}|${REDACTED}`);
  });

  it('an access token the backend rejects (401) is refreshed by the SDK and the call retried', async () => {
    const c = await connected(manager, spec);
    const before = readTokenFile(tokenFile(dir, NAME));
    const clientId = before.client?.client_id ?? '';
    await env.as.forgetAccessToken(before.tokens?.access_token ?? '');
    const unauthorizedBefore = env.server.stats.unauthorized;

    expect(JSON.parse(textOf(await c.callTool({ name: 'whoami', arguments: {} }))).client_id).toBe(clientId);
    expect(env.server.stats.unauthorized).toBe(unauthorizedBefore + 1);
    const after = readTokenFile(tokenFile(dir, NAME));
    expect(after.tokens?.access_token).not.toBe(before.tokens?.access_token);
    // The replaced token is no longer a secret to the redactor; the new one is.
    expect(redactor.redact(after.tokens?.access_token ?? '')).toBe(REDACTED);
    await c.close();
  });

  it('scope step-up: a call that needs more scope asks for consent, the backend keeps working, and after consent the call works', async () => {
    const c = await connected(manager, spec);
    const err = await c.callTool({ name: 'admin_echo', arguments: { text: 'hi' } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    const typed = findAuthorizationRequired(err);
    expect(typed).toBeInstanceOf(AuthorizationRequiredError);
    expect((typed as AuthorizationRequiredError).stepUpScope).toBe('mcp:tools mcp:admin');
    expect(env.server.stats.forbidden).toBe(1);
    // The other tools still work with the token there is.
    expect(JSON.parse(textOf(await c.callTool({ name: 'whoami', arguments: {} }))).scopes).toEqual(['mcp:tools']);

    const started = await manager.startReauth(NAME, spec);
    const params = new URL(started.authorization_url ?? '').searchParams;
    expect(params.get('scope')?.split(' ').sort()).toEqual(['mcp:admin', 'mcp:tools', 'offline_access']);
    const reauthenticated = once(manager, 'reauthenticated', { signal: AbortSignal.timeout(30_000) });
    const page = await authorizeInBrowser(browser, started.authorization_url ?? '', params.get('redirect_uri') ?? '');
    expect(page.status).toBe(200);
    await reauthenticated;

    // The same live connection picks up the new token.
    expect(textOf(await c.callTool({ name: 'admin_echo', arguments: { text: 'hi' } }))).toBe('hi');
    await c.close();
  });

  it('the user cancelling at the authorization server ends the flow with reauth_failed (access_denied)', async () => {
    const started = await manager.startReauth(NAME, spec);
    const redirect = new URL(started.authorization_url ?? '').searchParams.get('redirect_uri') ?? '';
    const failed = once(manager, 'reauth_failed', { signal: AbortSignal.timeout(30_000) });
    const page = await authorizeInBrowser(browser, started.authorization_url ?? '', redirect, { deny: true });
    expect(page.status).toBe(400);
    expect(page.text).toContain('access_denied');
    const [name, reason] = (await failed) as [string, string];
    expect(name).toBe(NAME);
    expect(reason).toContain('access_denied');
    // The stored authorization is untouched.
    const c = await connected(manager, spec);
    expect(textOf(await c.callTool({ name: 'admin_echo', arguments: { text: 'still' } }))).toBe('still');
    await c.close();
  });

  it('a revoked refresh token leads back to AuthorizationRequired', async () => {
    const stored = readTokenFile(tokenFile(dir, NAME));
    // Revoking the refresh token revokes the whole grant: the access token dies with it.
    await env.revoke(stored.tokens?.refresh_token ?? '', 'refresh_token', stored.client?.client_id ?? '');
    const err = await connectError(manager, spec);
    const typed = findAuthorizationRequired(err);
    expect(typed).toBeInstanceOf(AuthorizationRequiredError);
    expect((typed as AuthorizationRequiredError).why).toBe('the authorization server rejected the refresh token');
    expect(readTokenFile(tokenFile(dir, NAME)).tokens).toBeUndefined();
    // The client registration is kept for the next consent.
    expect(readTokenFile(tokenFile(dir, NAME)).client?.client_id).toBe(stored.client?.client_id);
  });

  it('a callback with a wrong state is refused; a flow nobody completes times out and closes its listener', async () => {
    const short = new BackendAuthManager({ tokensDir: dir, redactor, flowTimeoutMs: 1500 });
    const started = await short.startReauth(NAME, spec);
    const redirect = new URL(started.authorization_url ?? '').searchParams.get('redirect_uri') ?? '';
    const failed = once(short, 'reauth_failed', { signal: AbortSignal.timeout(30_000) });

    const forged = await fetch(`${redirect}?code=stolen&state=not-the-flow-state`);
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain('state mismatch');
    expect(short.pendingReauth(NAME)).toBe(started.authorization_url);

    const [, reason] = (await failed) as [string, string];
    expect(reason).toMatch(/nobody completed the authorization/);
    expect(short.pendingReauth(NAME)).toBeUndefined();
    await vi.waitFor(() => expect(fetch(redirect)).rejects.toThrow(), { timeout: 5000 });
  });

  it('reauth of a backend without auth.type oauth is refused with a typed error', async () => {
    await expect(manager.startReauth('plain', { type: 'streamable-http', url: env.server.mcpUrl })).rejects.toBeInstanceOf(ReauthNotSupportedError);
    await expect(
      manager.startReauth('static', { type: 'sse', url: env.server.sseUrl, auth: { type: 'bearer', token: 'static-token-0123456789' } }),
    ).rejects.toThrow(/does not use OAuth/);
    await expect(manager.startReauth('local', { type: 'stdio', command: 'true' })).rejects.toBeInstanceOf(ReauthNotSupportedError);
  });
});

describe('OAuth backend: a pre-registered confidential client with a fixed redirect_uri and configured scopes', () => {
  const CLIENT = { id: 'gateway-registered', secret: 'registered-secret-0123456789' };
  let env: OAuthEnv;
  let browser: HeadlessBrowser;
  let redirectUri: string;

  beforeAll(async () => {
    // A port nobody uses right now: the config fixes it.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    redirectUri = `http://127.0.0.1:${port}/oauth/done`;
    env = await startOAuthEnv({
      extraClients: [
        {
          client_id: CLIENT.id,
          client_secret: CLIENT.secret,
          redirect_uris: [redirectUri],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_post',
        },
      ],
    });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await env?.close();
  });

  it('uses the configured client, callback and scopes, and registers nothing', async () => {
    const manager = new BackendAuthManager({ tokensDir: mkdtempSync(join(tmpdir(), 'gw-tokens-')), redactor: new Redactor() });
    const spec: HttpBackendSpec = {
      type: 'streamable-http',
      url: env.server.mcpUrl,
      auth: {
        type: 'oauth',
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        token_endpoint_auth_method: 'client_secret_post',
        redirect_uri: redirectUri,
        scopes: ['mcp:tools', 'mcp:admin'],
      },
    };
    const started = await manager.startReauth(NAME, spec);
    const params = new URL(started.authorization_url ?? '').searchParams;
    expect(params.get('client_id')).toBe(CLIENT.id);
    expect(params.get('redirect_uri')).toBe(redirectUri);
    expect(params.get('scope')).toBe('mcp:tools mcp:admin offline_access');

    const done = once(manager, 'reauthenticated', { signal: AbortSignal.timeout(30_000) });
    expect((await authorizeInBrowser(browser, started.authorization_url ?? '', redirectUri)).status).toBe(200);
    await done;
    expect(env.as.registrations()).toHaveLength(0);

    const c = await connected(manager, spec);
    expect(textOf(await c.callTool({ name: 'admin_echo', arguments: { text: 'configured' } }))).toBe('configured');
    const me = JSON.parse(textOf(await c.callTool({ name: 'whoami', arguments: {} }))) as { client_id: string; scopes: string[] };
    expect(me.client_id).toBe(CLIENT.id);
    await c.close();
  });
});
