/**
 * A session belongs to the identity that created it: a request that names
 * it with another identity's credentials is told the session does not exist
 * (404, as for an unknown id), so a session id alone is worth nothing.
 */
import type { FastifyRequest } from 'fastify';
import { GatewayError } from '../../schemas/errors.js';
import { ANONYMOUS, sameOwner } from '../../runtime/access/identity.js';
import type { ClientSession } from './client-session.js';

/** Checks the request's caller against the session's owner, and refreshes the session's identity (its roles may be new). */
export function claimSession(req: FastifyRequest, session: ClientSession): void {
  const identity = req.identity ?? ANONYMOUS;
  if (!sameOwner(session.identity, identity)) {
    req.log.info(
      { session: session.id, owner: session.identity.userId ?? null, caller: identity.userId ?? null },
      'MCP request refused: the session belongs to another identity',
    );
    throw new GatewayError('not_found', `Session not found: ${session.id}`);
  }
  session.identity = identity;
}
