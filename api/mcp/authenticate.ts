/**
 * The front door of /mcp, /sse and /messages: every request, whatever its
 * method, is authenticated before its session is looked up or its body read
 * (`incoming_auth`, runtime/access/incoming-auth.ts). The caller it makes is
 * `req.identity`; a refusal is thrown with its challenge (401, or 403
 * `insufficient_scope`) and answered by the plugin's error handler. Only the
 * reason is logged, never the credentials.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BearerAuthError } from '../../schemas/errors.js';
import type { CallerIdentity } from '../../runtime/access/identity.js';
import type { IncomingAuth } from '../../runtime/access/incoming-auth.js';
import { bearerChallenge } from './protected-resource.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who sent the request, set by the MCP plugin's authentication (null elsewhere). */
    identity: CallerIdentity | null;
  }
}

export function authenticateClients(app: FastifyInstance, auth: IncomingAuth): void {
  app.decorateRequest('identity', null);
  // A callback hook: `anonymous` and `local` answer synchronously, and pay for no promise.
  app.addHook('onRequest', (req, _reply, done) => {
    let outcome: CallerIdentity | Promise<CallerIdentity>;
    try {
      outcome = auth.authenticate(req.headers.authorization);
    } catch (err) {
      return done(refusal(req, auth, err));
    }
    if (!(outcome instanceof Promise)) {
      req.identity = outcome;
      return done();
    }
    outcome.then(
      (identity) => {
        req.identity = identity;
        done();
      },
      (err: unknown) => done(refusal(req, auth, err)),
    );
  });
}

function refusal(req: FastifyRequest, auth: IncomingAuth, err: unknown): Error {
  if (!(err instanceof BearerAuthError)) return err as Error;
  req.log.info(
    { url: req.url.split('?')[0], client_ip: req.ip, reason: err.details.reason, description: err.refusal.description },
    'MCP request refused: not authenticated',
  );
  return err.withChallenge(bearerChallenge(req, auth.settings, err.refusal));
}
