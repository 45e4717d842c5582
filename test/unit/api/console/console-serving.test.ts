/** Where the console is on by default, how its files are cached, and the policy its page runs under. */
import { describe, expect, it } from 'vitest';
import { consoleEnabled } from '../../../../api/console/index.js';
import { cacheControlOf, CONTENT_SECURITY_POLICY } from '../../../../api/console/security-headers.js';
import { parseConfigText } from '../../../../controller/config/config-loader.js';

describe('the console', () => {
  it('is on by default only when the gateway listens on loopback; the config key decides when set', () => {
    const unset = parseConfigText('');
    expect(consoleEnabled(unset, '127.0.0.1')).toBe(true);
    expect(consoleEnabled(unset, '::1')).toBe(true);
    expect(consoleEnabled(unset, '0.0.0.0')).toBe(false);
    expect(consoleEnabled(unset, '10.1.2.3')).toBe(false);
    expect(consoleEnabled(parseConfigText('server: { console: { enabled: true } }'), '0.0.0.0')).toBe(true);
    expect(consoleEnabled(parseConfigText('server: { console: { enabled: false } }'), '127.0.0.1')).toBe(false);
  });

  it('caches hashed files for a year and checks the page every time', () => {
    expect(cacheControlOf('/srv/dist/console/assets/index-Buc_FKMR.js')).toBe('public, max-age=31536000, immutable');
    expect(cacheControlOf('/srv/dist/console/index.html')).toBe('no-cache');
  });

  it('lets the page run nothing inline, load nothing from elsewhere, and be framed by nobody', () => {
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-|https?:|\*/);
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'none'");
    expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
  });
});
