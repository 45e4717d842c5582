/**
 * Signing in to the console with the identity provider of `incoming_auth`
 * (`oidc`): a real authorization server (oidc-provider) with the console
 * registered as a public client, headless Chromium playing the person on
 * its login and consent pages, authorization code with PKCE back to
 * /console/callback. The identity's roles make its management role; one
 * without a role is turned back with the reason; a callback that this
 * browser did not start signs nobody in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startGateway, type Harness } from '../../helpers/gateway-harness.js';
import { freePort } from '../../helpers/ports.js';
import { launchChromium, type HeadlessBrowser } from '../../helpers/chromium.js';
import { expectAccessible } from '../../helpers/console-browser.js';
import { stdioFixture } from '../../fixtures/fixture-backend.js';
import { startAuthorizationServer, type RunningAuthorizationServer } from '../../fixtures/oauth-authorization-server.js';
import { TOKEN_ENV } from '../../../api/management/auth.js';

const ROLES: Record<string, string[]> = { alice: ['sre'], mallory: ['guest'] };

/** Plays the person on oidc-provider's development pages: log in as `login`, then consent, until the browser is back at the gateway. */
async function signInAtProvider(page: Page, gatewayUrl: string, login: string): Promise<void> {
  for (let step = 0; step < 4 && !page.url().startsWith(gatewayUrl); step++) {
    const before = page.url();
    if (await page.locator('input[name="login"]').count()) {
      await page.locator('input[name="login"]').fill(login);
      await page.locator('input[name="password"]').fill('any-password');
    }
    await page.locator('button[type="submit"]').click();
    await page.waitForURL((url) => url.href !== before, { timeout: 15_000 });
  }
}

describe('console sign-in with the identity provider', { timeout: 90_000 }, () => {
  let as: RunningAuthorizationServer;
  let h: Harness;
  let browser: HeadlessBrowser;

  beforeAll(async () => {
    delete process.env[TOKEN_ENV];
    const port = await freePort();
    const gatewayUrl = `http://127.0.0.1:${port}`;
    as = await startAuthorizationServer({
      accessTokenFormat: 'jwt',
      roles: (subject) => ROLES[subject] ?? [],
      clients: [
        {
          client_id: 'gateway-console',
          token_endpoint_auth_method: 'none',
          redirect_uris: [`${gatewayUrl}/console/callback`],
          grant_types: ['authorization_code'],
          response_types: ['code'],
        },
      ],
    });
    as.allowResource(`${gatewayUrl}/mcp`);
    h = await startGateway({
      server: { host: '127.0.0.1', port, management: { roles: { operator: ['sre'] } }, console: { oidc: { client_id: 'gateway-console' } } },
      incoming_auth: { type: 'oidc', issuer: as.issuer, audience: `${gatewayUrl}/mcp` },
      backends: { fx: stdioFixture(['--name', 'fx']) },
    });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await h?.close();
    await as?.close();
  });

  it('a person with a role signs in at the provider and lands in the console as themselves', async () => {
    const page = await browser.page();
    await page.goto(`${h.url}/console/`);
    const button = page.getByRole('link', { name: `Sign in with ${as.issuer}` });
    await button.waitFor();
    await expectAccessible(page, 'the sign-in page with a provider');
    const authorization = page.waitForRequest((req) => req.url().startsWith(`${as.issuer}/auth?`));
    await button.click();
    // PKCE with S256, and a token for the gateway's own audience.
    const params = new URL((await authorization).url()).searchParams;
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(params.get('resource')).toBe(`${h.url}/mcp`);
    expect(params.get('client_id')).toBe('gateway-console');
    await page.waitForURL((url) => url.href.startsWith(as.issuer));
    await signInAtProvider(page, h.url, 'alice');
    await page.getByTestId('overview').waitFor();
    expect(await page.getByTestId('who').textContent()).toContain('alice · operator');
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage, cookie: document.cookie }));
    expect(stored).not.toMatch(/eyJ/);
    expect(await page.evaluate(async () => (await fetch('/manage/v1/backends')).status)).toBe(200);
    await page.close();
  });

  it('a person without a management role is turned back with the reason', async () => {
    // A browser of its own: the provider must not remember alice.
    const other = await launchChromium();
    try {
      const page = await other.page();
      await page.goto(`${h.url}/console/`);
      await page.getByRole('link', { name: `Sign in with ${as.issuer}` }).click();
      await page.waitForURL((url) => url.href.startsWith(as.issuer));
      await signInAtProvider(page, h.url, 'mallory');
      await page.getByRole('alert').getByText('no management role').waitFor();
      expect(await page.evaluate(async () => (await fetch('/manage/v1/backends')).status)).toBe(401);
    } finally {
      await other.close();
    }
  });

  it('a callback this browser did not start signs nobody in', async () => {
    const page = await browser.page();
    await page.goto(`${h.url}/console/callback?code=stolen&state=planted`);
    await page.getByRole('alert').getByText('not started in this browser').waitFor();
    await page.close();
  });
});
