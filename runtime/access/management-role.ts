/**
 * The management role of an identity `incoming_auth` established (a local
 * token, a JWT), as `server.management.roles` says: the highest role one of
 * whose entries matches, or none. An entry matches a role the identity
 * carries, `user:<id>` its user id, and `*` anyone authenticated.
 */
import { MANAGEMENT_ROLES, type ManagementRole, type ManagementRolesSpec } from '../../schemas/management-roles.js';
import type { CallerIdentity } from './identity.js';

export function managementRoleOf(identity: CallerIdentity, spec: ManagementRolesSpec | undefined): ManagementRole | undefined {
  if (!spec || identity.userId === undefined) return undefined;
  const matches = (entry: string) => entry === '*' || entry === `user:${identity.userId}` || identity.roles.includes(entry);
  return [...MANAGEMENT_ROLES].reverse().find((role) => (spec[role] ?? []).some(matches));
}
