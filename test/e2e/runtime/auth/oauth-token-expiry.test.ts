/**
 * Token expiry with a user's authorization: access tokens live 2 seconds
 * here. After one consent in a browser, the backend keeps working across
 * expiries and a restart, by refresh alone: renewed before a request would
 * carry a dead token (the backend sees no 401), with the rotated refresh
 * tokens the server hands out.
 */
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { BackendAuthManager } from '../../../../runtime/auth/backend-auth-manager.js';
import { tokenFile } from '../../../../runtime/auth/token-store.js';
import { Redactor } from '../../../../runtime/observability/logging/redactor.js';
import type { HttpBackendSpec } from '../../../../schemas/config.js';
import { authorizeInBrowser, launchChromium } from '../../../helpers/chromium.js';
import { readTokenFile } from '../../../helpers/token-file.js';
import { startOAuthEnv, type OAuthEnv } from '../../../fixtures/oauth-env.js';
import { AS_PROCESS, createBackendTransport } from '../../../../runtime/transports/create-backend-transport.js';

const NAME = 'short-lived';

describe('OAuth backend: access tokens expire, refresh keeps the backend working', () => {
  let env: OAuthEnv;
  let dir: string;
  let spec: HttpBackendSpec;

  /** Waits until the stored access token has expired (by its own expires_in). */
  async function untilExpired(): Promise<void> {
    const expiresAt = readTokenFile(tokenFile(dir, NAME)).expires_at ?? 0;
    expect(expiresAt).toBeGreaterThan(0);
    await sleep(Math.max(0, expiresAt - Date.now()) + 100);
  }

  async function whoamiClientId(c: Client): Promise<string> {
    const result = (await c.callTool({ name: 'whoami', arguments: {} })) as { content: Array<{ text: string }> };
    return (JSON.parse(result.content[0].text) as { client_id: string }).client_id;
  }

  beforeAll(async () => {
    env = await startOAuthEnv({ accessTokenTtlS: 2 });
    dir = mkdtempSync(join(tmpdir(), 'gw-tokens-'));
    spec = { type: 'streamable-http', url: env.server.mcpUrl, auth: { type: 'oauth' } };
    const manager = new BackendAuthManager({ tokensDir: dir, redactor: new Redactor() });
    const browser = await launchChromium();
    try {
      const { authorization_url } = await manager.startReauth(NAME, spec);
      const redirect = new URL(authorization_url ?? '').searchParams.get('redirect_uri') ?? '';
      const done = once(manager, 'reauthenticated', { signal: AbortSignal.timeout(30_000) });
      expect((await authorizeInBrowser(browser, authorization_url ?? '', redirect)).status).toBe(200);
      await done;
    } finally {
      await browser.close();
    }
  });

  afterAll(async () => {
    await env?.close();
  });

  it('a live connection keeps working across expiries, renewing before a request would be refused', async () => {
    const manager = new BackendAuthManager({ tokensDir: dir, redactor: new Redactor() });
    const c = new Client({ name: 'oauth-test', version: '1.0.0' });
    await c.connect(createBackendTransport(NAME, spec, AS_PROCESS, manager));
    const clientId = await whoamiClientId(c);
    const unauthorizedBefore = env.server.stats.unauthorized;
    for (let round = 0; round < 2; round++) {
      const before = readTokenFile(tokenFile(dir, NAME)).tokens;
      await untilExpired();
      expect(await whoamiClientId(c)).toBe(clientId);
      const after = readTokenFile(tokenFile(dir, NAME)).tokens;
      expect(after?.access_token).not.toBe(before?.access_token);
      // A public client's refresh token is rotated on every use; the new one is kept.
      expect(after?.refresh_token).not.toBe(before?.refresh_token);
    }
    expect(env.server.stats.unauthorized).toBe(unauthorizedBefore);
    await c.close();
  });

  it('a restart after the token expired refreshes it from the stored refresh token, with no browser', async () => {
    await untilExpired();
    const restarted = new BackendAuthManager({ tokensDir: dir, redactor: new Redactor() });
    const c = new Client({ name: 'oauth-test', version: '1.0.0' });
    await c.connect(createBackendTransport(NAME, spec, AS_PROCESS, restarted));
    expect(await whoamiClientId(c)).toBe(env.as.registrations()[0].client_id);
    expect(env.as.registrations()).toHaveLength(1);
    await c.close();
  });
});
