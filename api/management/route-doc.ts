/**
 * The OpenAPI fields of a route's `schema`, read by @fastify/swagger
 * (openapi-document.ts), and the error answers a route can give.
 */
import { errorResponse } from '../../schemas/api.js';
import type { ManagementRole } from '../../schemas/management-roles.js';

export interface RouteDoc {
  tags: string[];
  summary: string;
  /** Present and empty on a public route: the access hook reads it too (access-hook.ts). */
  security?: [];
  /** The role the route needs (access-hook.ts); absent: `viewer` to read, `admin` to change. */
  'x-required-role'?: ManagementRole;
}

/**
 * `public`: no credential needed (spec section 5: /health and /ready).
 * `role`: what a route that changes something needs when `admin` is too much.
 */
export const doc = (tag: string, summary: string, opts: { public?: boolean; role?: ManagementRole } = {}): RouteDoc => ({
  tags: [tag],
  summary,
  ...(opts.public ? { security: [] as [] } : {}),
  ...(opts.role ? { 'x-required-role': opts.role } : {}),
});

/** The 401 of every route that needs a credential; a public route's document leaves it out (openapi-document.ts). */
export const UNAUTHORIZED = 'Missing or invalid bearer token (`unauthorized`).';

/**
 * Error answers every route can give, plus route-specific ones. The 401 is
 * left out of the document of a public route (openapi-document.ts).
 */
export const errors = (specific: Record<number, string> = {}) => {
  const all: Record<number, string> = {
    ...specific,
    401: specific[401] ?? UNAUTHORIZED,
    403: [
      specific[403],
      'The role does not allow it (`insufficient_role`); a console change without its CSRF token, or a Host or Origin not allowed (`forbidden`).',
    ]
      .filter(Boolean)
      .join(' Or: '),
    500: 'Internal error (`internal_error`).',
  };
  return Object.fromEntries(Object.entries(all).map(([status, text]) => [status, errorResponse(text)]));
};

export const BAD_REQUEST = 'Invalid query, path or body (`bad_request`).';
