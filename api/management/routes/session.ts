/**
 * The console's sign-in (docs/console.md): GET /session says who this
 * request is and how one may sign in; POST /session exchanges a token for a
 * session cookie; DELETE /session signs out. All three are public: they are
 * how a credential is presented or given up. A refused sign-in counts
 * against the address (sign-in-throttle.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static } from '@sinclair/typebox';
import { SessionBodySchema, SessionSchema } from '../../../schemas/api.js';
import { GatewayError } from '../../../schemas/errors.js';
import type { ManagementContext } from '../context.js';
import { BAD_REQUEST, doc, errors } from '../route-doc.js';
import { checkCsrf } from '../access-hook.js';
import type { Principal, Principals } from '../principal.js';
import { clearSessionCookie, sessionCookieOf, setSessionCookie } from '../session-cookie.js';
import { SignInThrottle } from '../sign-in-throttle.js';

type SessionView = Static<typeof SessionSchema>;

/** Where the console starts a sign-in with the identity provider (api/console/oidc-sign-in.ts). */
export const IDP_LOGIN_PATH = '/console/login';

export function sessionRoutes(app: FastifyInstance, ctx: ManagementContext, principals: Principals): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const throttle = new SignInThrottle();

  const view = (principal: Principal | undefined): SessionView => {
    const { incoming_auth: auth, server } = ctx.controller.config;
    const idp = server.console.oidc !== undefined && (auth.type === 'jwt' || auth.type === 'oidc') && auth.issuer !== undefined;
    return {
      signed_in: principal !== undefined,
      user: principal?.user ?? null,
      role: principal?.role ?? null,
      credential: principal?.credential ?? null,
      csrf_token: principal?.session?.csrfToken ?? null,
      sign_in: { token: !principals.open, identity_provider: idp ? { issuer: auth.issuer!, login_url: IDP_LOGIN_PATH } : null },
    };
  };

  /** Who a request is, without refusing it: a wrong credential is "not signed in". */
  const current = async (req: FastifyRequest): Promise<Principal | undefined> => {
    try {
      return await principals.of(req);
    } catch (err) {
      if (err instanceof GatewayError && (err.code === 'unauthorized' || err.code === 'insufficient_role' || err.code === 'insufficient_scope'))
        return undefined;
      throw err;
    }
  };

  r.get(
    '/session',
    {
      schema: {
        ...doc('session', 'Who this request is, and how one signs in to the console', { public: true }),
        response: { 200: SessionSchema, ...errors() },
      },
    },
    async (req) => view(await current(req)),
  );

  r.post(
    '/session',
    {
      schema: {
        ...doc('session', 'Sign in to the console: exchange a token for a session cookie', { public: true }),
        body: SessionBodySchema,
        response: {
          200: SessionSchema,
          ...errors({
            400: BAD_REQUEST,
            401: 'The token is not accepted (`unauthorized`).',
            403: 'The identity has no management role (`insufficient_role`).',
            429: 'Too many failed sign-ins from this address (`rate_limited`).',
          }),
        },
      },
    },
    async (req, reply) => {
      throttle.check(req.ip);
      let signedIn;
      try {
        signedIn = await principals.fromBearer(`Bearer ${req.body.token}`);
      } catch (err) {
        if (err instanceof GatewayError && err.code !== 'service_unavailable') throttle.failed(req.ip);
        throw err;
      }
      ctx.consoleSessions.end(sessionCookieOf(req));
      const { id, session } = ctx.consoleSessions.create(signedIn.proof);
      setSessionCookie(req, reply, id);
      req.log.info({ user: signedIn.principal.user, role: signedIn.principal.role, ip: req.ip }, 'console sign-in');
      return view({ ...signedIn.principal, credential: 'console_session', session });
    },
  );

  r.delete(
    '/session',
    {
      schema: {
        ...doc('session', 'Sign out of the console: the session ends now', { public: true }),
        response: { 200: SessionSchema, ...errors({ 403: 'A console session without its CSRF token (`forbidden`).' }) },
      },
    },
    async (req, reply: FastifyReply) => {
      const signedIn = principals.sessionOf(req);
      if (signedIn?.session) {
        checkCsrf(req, signedIn.session);
        ctx.consoleSessions.end(sessionCookieOf(req));
        req.log.info({ user: signedIn.user, ip: req.ip }, 'console sign-out');
      }
      clearSessionCookie(req, reply);
      return view(principals.open ? await current(req) : undefined);
    },
  );
}
