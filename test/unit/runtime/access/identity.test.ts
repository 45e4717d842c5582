/** A caller's claims and token live in memory only: no JSON, log line, spread or session record carries them. */
import { describe, expect, it } from 'vitest';
import { identityOf } from '../../../../runtime/access/identity.js';

describe('identityOf with claims and token', () => {
  it('keeps them readable and out of every serialization', () => {
    const identity = identityOf('oidc', 'alice', ['dev', 'dev', 'admin'], { claims: { sub: 'alice', org: 'acme' }, token: 'eyJ.secret.token' });
    expect(identity.claims).toEqual({ sub: 'alice', org: 'acme' });
    expect(identity.token).toBe('eyJ.secret.token');
    expect(JSON.stringify(identity)).toBe('{"type":"oidc","userId":"alice","roles":["admin","dev"]}');
    expect({ ...identity }).toEqual({ type: 'oidc', userId: 'alice', roles: ['admin', 'dev'] });
    expect(Object.keys(identity)).toEqual(['type', 'userId', 'roles']);
  });

  it('has neither without them', () => {
    const identity = identityOf('local', 'bot', []);
    expect('claims' in identity || 'token' in identity).toBe(false);
  });
});
