/**
 * What a person may do through the management API and the console
 * (docs/management-api.md#roles): `viewer` reads, `operator` also acts on
 * backends and definitions (reconnect, reauth, approve, call tools, read
 * resources, switch skills), `admin` also changes the gateway itself
 * (reload, install, shutdown). Each role includes the ones before it.
 */
import { Type, type Static } from '@sinclair/typebox';

export const MANAGEMENT_ROLES = ['viewer', 'operator', 'admin'] as const;
export type ManagementRole = (typeof MANAGEMENT_ROLES)[number];

/** Whether `held` allows what `needed` allows. */
export const roleAllows = (held: ManagementRole, needed: ManagementRole): boolean => MANAGEMENT_ROLES.indexOf(held) >= MANAGEMENT_ROLES.indexOf(needed);

/** An entry of `server.management.roles.<role>`: a role the identity carries, `user:<id>`, or `*` (anyone authenticated). */
export const ROLE_MEMBER_HINT = 'a role of the identity (`sre`), `user:<id>` for one user (a JWT `sub`, a local token `name`), or `*` for anyone authenticated';

const Members = (role: ManagementRole) => Type.Array(Type.String({ minLength: 1 }), { description: `Who is \`${role}\`: each entry ${ROLE_MEMBER_HINT}.` });

export const ManagementRolesSchema = Type.Object(
  {
    viewer: Type.Optional(Members('viewer')),
    operator: Type.Optional(Members('operator')),
    admin: Type.Optional(Members('admin')),
  },
  {
    additionalProperties: false,
    description:
      'Which identities of `incoming_auth` (local tokens, JWTs) may use the management API and the console, and as what; the highest matching role wins. The management token is always `admin`.',
  },
);
export type ManagementRolesSpec = Static<typeof ManagementRolesSchema>;
