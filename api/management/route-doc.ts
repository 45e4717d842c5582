/**
 * Per-route metadata carried in Fastify's route `config`: read by the auth
 * hook (`public`) and the OpenAPI generator (the rest).
 */
import { errorResponse } from '../../schemas/api.js';

export interface RouteDoc {
  summary: string;
  tag: string;
  /** No token needed (spec section 5: /health and /ready). */
  public?: boolean;
  /** The 200 answer is a `text/event-stream`, not JSON. */
  stream?: boolean;
  /** The JSON body may be omitted. */
  optionalBody?: boolean;
}

export const doc = (tag: string, summary: string, extra: Omit<RouteDoc, 'tag' | 'summary'> = {}): RouteDoc => ({ tag, summary, ...extra });

/** Error answers every protected route can give, plus route-specific ones. */
export const errors = (specific: Record<number, string> = {}, opts: { public?: boolean } = {}) => {
  const all: Record<number, string> = { ...specific, 500: 'Internal error (`internal_error`).' };
  if (!opts.public) all[401] = 'Missing or invalid bearer token (`unauthorized`).';
  return Object.fromEntries(Object.entries(all).map(([status, text]) => [status, errorResponse(text)]));
};

export const BAD_REQUEST = 'Invalid query, path or body (`bad_request`).';
