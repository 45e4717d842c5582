/**
 * Headless Chromium (Debian's `chromium` package) driven by playwright-core,
 * for the browser half of OAuth flows: it opens an authorization URL, logs in
 * and consents on oidc-provider's development pages, and lands on the
 * gateway's callback page.
 *
 * Missing Chromium fails the test with the command that installs it
 * (`.ci/setup-chromium.sh`); it is never skipped.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // Nothing but loopback: the login page's web font must not be looked up.
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost',
];

export function chromiumPath(): string {
  try {
    return execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error("Chromium is missing: install Debian's package (bash .ci/setup-chromium.sh, or apt-get install chromium)");
  }
}

export interface HeadlessBrowser {
  /** A fresh page in the browser's only context (cookies persist across pages, like a user's browser). */
  page(): Promise<Page>;
  close(): Promise<void>;
}

/** A persistent context needs a user-data-dir: a fresh one per browser, removed on close. */
export async function launchChromium(): Promise<HeadlessBrowser> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'chromium-profile-'));
  const context: BrowserContext = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath(),
    headless: true,
    args: FLAGS,
  });
  // And requests to anything else are dropped before they leave the browser.
  await context.route(/^(?!https?:\/\/(127\.0\.0\.1|localhost)[:/])/, (route) => route.abort('blockedbyclient'));
  return {
    page: () => context.newPage(),
    close: async () => {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** What the browser ended on: the gateway's callback page. */
export interface CallbackPage {
  status: number | undefined;
  url: string;
  text: string;
  /** The text of the gateway's consent page (`/oauth/start/<id>`), when the flow passed one. */
  consent?: string;
}

/**
 * Plays the user on the gateway's consent page (`server.public_url`: the
 * URL handed out is `/oauth/start/<id>`, whose one button leads on), then
 * on oidc-provider's development interaction pages: log in (any name and
 * password are accepted) unless a session exists, then consent unless
 * already given, until the browser reaches `callbackPrefix`.
 * With `deny`, the user cancels instead (the server answers access_denied);
 * `login` is the name logged in with (default `alice`).
 */
export async function authorizeInBrowser(
  browser: HeadlessBrowser,
  authorizationUrl: string,
  callbackPrefix: string,
  opts: { deny?: boolean; login?: string } = {},
): Promise<CallbackPage> {
  const page = await browser.page();
  try {
    const callback = page.waitForResponse((res) => res.url().startsWith(callbackPrefix), { timeout: 20_000 });
    await page.goto(authorizationUrl);
    let consent: string | undefined;
    for (let step = 0; step < 5 && !page.url().startsWith(callbackPrefix); step++) {
      const before = page.url();
      const login = page.locator('input[name="login"]');
      if (new URL(before).pathname.includes('/oauth/start/')) {
        consent = await page.locator('body').innerText();
        await page.locator('button[type="submit"]').click();
      } else if (opts.deny) {
        // Login and consent pages both offer "[ Cancel ]".
        await page.getByRole('link', { name: /cancel/i }).click();
      } else if (await login.count()) {
        await login.fill(opts.login ?? 'alice');
        await page.locator('input[name="password"]').fill('any-password');
        await page.locator('button[type="submit"]').click();
      } else {
        // The consent page: one "Continue" button.
        await page.locator('button[type="submit"]').click();
      }
      await page.waitForURL((url) => url.href !== before, { timeout: 10_000 });
    }
    const res = await callback;
    return { status: res.status(), url: res.url(), text: await res.text(), ...(consent !== undefined ? { consent } : {}) };
  } finally {
    await page.close();
  }
}
