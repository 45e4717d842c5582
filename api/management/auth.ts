/**
 * The management token (spec section 5). It comes from GATEWAY_MGMT_TOKEN or,
 * when that is unset or empty, from server.management.token; with neither
 * (and no `server.management.roles`) the API is open. Routes whose schema
 * has an empty `security` list (/health, /ready, the index) never need a
 * credential: the same field the OpenAPI document shows. Who a request is
 * and what it may do: principal.ts and access-hook.ts.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifySchema } from 'fastify';
import type { GatewayConfig } from '../../schemas/config.js';

export const TOKEN_ENV = 'GATEWAY_MGMT_TOKEN';

export const MANAGEMENT_CHALLENGE = 'Bearer realm="management"';

/** OpenAPI's spelling of "no token": `security: []` overrides the document-wide bearer requirement. */
export const isPublic = (schema: FastifySchema | undefined): boolean => schema?.security?.length === 0;

/** The environment wins: it is how deployments inject secrets, and it overrides a token left in a checked-in file. */
export function managementToken(config: GatewayConfig, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const fromEnv = env[TOKEN_ENV];
  if (fromEnv) return fromEnv;
  return config.server.management.token || undefined;
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** Constant time: both sides are hashed first, so neither content nor length leaks through timing. */
export function tokenMatches(authorization: string | undefined, expected: string): boolean {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
  const presented = match?.[1] ?? '';
  const ok = timingSafeEqual(digest(presented), digest(expected));
  return ok && presented.length > 0;
}
