/** `server.management.roles`: which identity is viewer, operator or admin (the highest match wins). */
import { describe, expect, it } from 'vitest';
import { managementRoleOf } from '../../../../runtime/access/management-role.js';
import { ANONYMOUS, identityOf } from '../../../../runtime/access/identity.js';

const ROLES = { viewer: ['*'], operator: ['sre', 'user:erin'], admin: ['platform'] };

describe('managementRoleOf', () => {
  it('matches a role the identity carries, its user id, or anyone authenticated; the highest wins', () => {
    expect(managementRoleOf(identityOf('jwt', 'alice', ['sre', 'platform']), ROLES)).toBe('admin');
    expect(managementRoleOf(identityOf('jwt', 'bob', ['sre']), ROLES)).toBe('operator');
    expect(managementRoleOf(identityOf('local', 'erin', []), ROLES)).toBe('operator');
    expect(managementRoleOf(identityOf('local', 'frank', ['guest']), ROLES)).toBe('viewer');
  });

  it('gives nothing without roles configured, to anonymous callers, or without a match', () => {
    expect(managementRoleOf(identityOf('jwt', 'alice', ['platform']), undefined)).toBeUndefined();
    expect(managementRoleOf(ANONYMOUS, ROLES)).toBeUndefined();
    expect(managementRoleOf(identityOf('jwt', 'alice', ['dev']), { operator: ['sre'] })).toBeUndefined();
    // `user:` names a user, never a role of that spelling.
    expect(managementRoleOf(identityOf('jwt', 'mallory', ['user:erin']), { admin: ['user:erin'] })).toBe('admin');
    expect(managementRoleOf(identityOf('jwt', 'mallory', []), { admin: ['user:erin'] })).toBeUndefined();
  });
});
