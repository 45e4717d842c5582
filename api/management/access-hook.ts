/**
 * Every management request but the public ones: who is asking (principal.ts),
 * whether a console session's change carries its CSRF token, and whether the
 * role allows the route. A route names the role it needs in its schema
 * (route-doc.ts, `x-required-role`); one that names none needs `viewer` to
 * read and `admin` for anything else, so a route added without thought is
 * closed, not open.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest, FastifySchema } from 'fastify';
import { InsufficientRoleError } from '../../schemas/errors.js';
import { roleAllows, type ManagementRole } from '../../schemas/management-roles.js';
import { isPublic } from './auth.js';
import { csrfRefusal, type Principal, type Principals } from './principal.js';
import type { ConsoleSession } from './console-sessions.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who sent a management request, set by the access hook (null on public routes). */
    principal: Principal | null;
  }
}

export const ROLE_KEY = 'x-required-role';
const SAFE_METHODS = new Set(['GET', 'HEAD']);

export function requiredRole(method: string, schema: FastifySchema | undefined): ManagementRole {
  const declared = (schema as Record<string, unknown> | undefined)?.[ROLE_KEY] as ManagementRole | undefined;
  return declared ?? (SAFE_METHODS.has(method) ? 'viewer' : 'admin');
}

/** A change made with a console session must echo that session's CSRF token. */
export function checkCsrf(req: FastifyRequest, session: ConsoleSession): void {
  if (SAFE_METHODS.has(req.method)) return;
  const sent = req.headers['x-csrf-token'];
  if (typeof sent !== 'string' || sent.length === 0) throw csrfRefusal('the CSRF token is missing');
  const a = Buffer.from(sent);
  const b = Buffer.from(session.csrfToken);
  if (a.length !== b.length || !timingSafeEqual(a, b)) throw csrfRefusal('the CSRF token is wrong');
}

export function accessHook(principals: Principals) {
  return async function checkAccess(req: FastifyRequest): Promise<void> {
    const schema = req.routeOptions.schema;
    if (isPublic(schema)) return;
    const principal = await principals.of(req);
    if (principal.session) checkCsrf(req, principal.session);
    const needed = requiredRole(req.method, schema);
    if (!roleAllows(principal.role, needed)) throw new InsufficientRoleError(needed, principal.role, `${req.method} ${req.routeOptions.url ?? req.url}`);
    req.principal = principal;
  };
}
