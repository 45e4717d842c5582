/**
 * The OpenAPI fields of a route's `schema`, read by @fastify/swagger
 * (openapi-document.ts), and the error answers a route can give.
 */
import { errorResponse } from '../../schemas/api.js';

export interface RouteDoc {
  tags: string[];
  summary: string;
  /** Present and empty on a public route: the auth hook reads it too (auth.ts). */
  security?: [];
}

/** `public`: no token needed (spec section 5: /health and /ready). */
export const doc = (tag: string, summary: string, opts: { public?: boolean } = {}): RouteDoc => ({
  tags: [tag],
  summary,
  ...(opts.public ? { security: [] as [] } : {}),
});

/**
 * Error answers every route can give, plus route-specific ones. The 401 is
 * left out of the document of a public route (openapi-document.ts).
 */
export const errors = (specific: Record<number, string> = {}) => {
  const all: Record<number, string> = {
    ...specific,
    401: 'Missing or invalid bearer token (`unauthorized`).',
    500: 'Internal error (`internal_error`).',
  };
  return Object.fromEntries(Object.entries(all).map(([status, text]) => [status, errorResponse(text)]));
};

export const BAD_REQUEST = 'Invalid query, path or body (`bad_request`).';
