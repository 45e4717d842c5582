/**
 * The token file on its own: mode 0600 however the file was before, atomic
 * replacement, what a damaged or foreign file is worth, and the redactor
 * following the secrets it holds.
 */
import { chmodSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TokenStore, tokenFile } from '../../../../runtime/auth/token-store.js';
import { REDACTED, Redactor } from '../../../../runtime/observability/logging/redactor.js';
import { readTokenFile } from '../../../helpers/token-file.js';

const URL_A = 'https://mcp.example.test/mcp';
const ACCESS = 'access-token-0123456789abcdef';
const REFRESH = 'refresh-token-0123456789abcdef';

function fresh(): { dir: string; file: string; redactor: Redactor } {
  const dir = mkdtempSync(join(tmpdir(), 'gw-store-'));
  return { dir, file: tokenFile(join(dir, 'tokens'), 'remote'), redactor: new Redactor() };
}

describe('TokenStore', () => {
  it('creates the folder and writes the file with mode 0600, replacing a looser file', () => {
    const { dir, file, redactor } = fresh();
    const store = new TokenStore(file, URL_A, redactor);
    store.update({ tokens: { access_token: ACCESS, token_type: 'Bearer', expires_in: 60 } });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'tokens')).mode & 0o777).toBe(0o700);

    chmodSync(file, 0o644);
    store.update({ tokens: { access_token: `${ACCESS}-2`, token_type: 'Bearer' } });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Written by rename: no temporary file is left behind.
    expect(readdirSync(join(dir, 'tokens'))).toEqual(['remote.json']);
  });

  it('records when the access token expires and reads everything back in a new instance', () => {
    const { file, redactor } = fresh();
    const before = Date.now();
    new TokenStore(file, URL_A, redactor).update({
      tokens: { access_token: ACCESS, refresh_token: REFRESH, token_type: 'Bearer', expires_in: 60, issuer: 'https://as.example.test/' },
      client: { client_id: 'abc', client_secret: 'client-secret-0123456789', issuer: 'https://as.example.test/' },
    });
    const stored = readTokenFile(file);
    expect(stored.expires_at).toBeGreaterThanOrEqual(before + 60_000);
    const again = new TokenStore(file, URL_A, new Redactor());
    expect(again.tokens).toEqual({
      access_token: ACCESS,
      refresh_token: REFRESH,
      token_type: 'Bearer',
      expires_in: 60,
      issuer: 'https://as.example.test/',
    });
    expect(again.client?.client_id).toBe('abc');
    expect(again.expiresAt).toBe(stored.expires_at);
  });

  it('registers tokens and client secrets with the redactor as they are saved or loaded, and forgets replaced ones', () => {
    const { file, redactor } = fresh();
    const store = new TokenStore(file, URL_A, redactor);
    store.update({
      tokens: { access_token: ACCESS, refresh_token: REFRESH, token_type: 'Bearer' },
      client: { client_id: 'abc', client_secret: 'client-secret-0123456789' },
    });
    expect(redactor.redact(`${ACCESS} ${REFRESH} client-secret-0123456789`)).toBe(`${REDACTED} ${REDACTED} ${REDACTED}`);

    store.update({ tokens: { access_token: 'access-token-next-0123456789', refresh_token: REFRESH, token_type: 'Bearer' } });
    expect(redactor.redact(ACCESS)).toBe(ACCESS);
    expect(redactor.redact('access-token-next-0123456789')).toBe(REDACTED);
    expect(redactor.redact(REFRESH)).toBe(REDACTED);

    const loaded = new Redactor();
    new TokenStore(file, URL_A, loaded);
    expect(loaded.redact(`${REFRESH} client-secret-0123456789`)).toBe(`${REDACTED} ${REDACTED}`);

    store.clear();
    expect(redactor.size).toBe(0);
    expect(() => statSync(file)).toThrow();
  });

  it('a value too short to redact is stored but not registered (and does not fail)', () => {
    const { file, redactor } = fresh();
    new TokenStore(file, URL_A, redactor).update({ tokens: { access_token: 'short', token_type: 'Bearer' } });
    expect(readTokenFile(file).tokens?.access_token).toBe('short');
    expect(redactor.size).toBe(0);
  });

  it('ignores a damaged file, a file for another backend URL, and malformed parts', () => {
    const { file, redactor } = fresh();
    new TokenStore(file, URL_A, redactor).update({ tokens: { access_token: ACCESS, token_type: 'Bearer' } });
    // The config now points the backend elsewhere: the old credentials are void.
    expect(new TokenStore(file, 'https://other.example.test/mcp', redactor).tokens).toBeUndefined();

    writeFileSync(file, '{ not json');
    expect(new TokenStore(file, URL_A, redactor).tokens).toBeUndefined();

    writeFileSync(file, JSON.stringify({ version: 1, server_url: URL_A, tokens: { token_type: 'Bearer' }, client: { client_id: 'kept' } }));
    const partial = new TokenStore(file, URL_A, redactor);
    expect(partial.tokens).toBeUndefined();
    expect(partial.client?.client_id).toBe('kept');
  });

  it('refuses a backend name that could leave the tokens folder', () => {
    expect(() => tokenFile('/tmp/tokens', '../escape')).toThrow(/Invalid backend name/);
    expect(() => tokenFile('/tmp/tokens', 'a/b')).toThrow(/Invalid backend name/);
    expect(tokenFile('/tmp/tokens', 'ok-name.1')).toBe('/tmp/tokens/ok-name.1.json');
  });
});
