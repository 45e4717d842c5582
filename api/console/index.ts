/**
 * The web console at /console (docs/console.md): the static page built by
 * `npm run build` (Vite, from `console/`), served precompressed (brotli,
 * gzip) with cache headers by content hash and a strict
 * Content-Security-Policy, and the two navigations of a sign-in with the
 * identity provider. Everything the page shows and does goes through the
 * management API under /manage/v1, with the console's session cookie.
 *
 * `server.console.enabled` is read per request (a reload turns the console
 * on or off); unset, the console is on when the gateway listens on loopback
 * only. Served by whatever listener serves the management API.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import type { GatewayConfig } from '../../schemas/config.js';
import { GatewayError } from '../../schemas/errors.js';
import { isLoopbackHost } from '../../runtime/net/loopback.js';
import { installErrorHandling } from '../management/errors.js';
import type { ManagementContext } from '../management/context.js';
import type { Principals } from '../management/principal.js';
import { setSessionCookie, sessionCookieOf } from '../management/session-cookie.js';
import { consoleAssetsDir } from './assets.js';
import { cacheControlOf, SECURITY_HEADERS } from './security-headers.js';
import { CALLBACK_PATH, identityProviderOf, OidcSignIn } from './oidc-sign-in.js';

export const CONSOLE_PREFIX = '/console';

export interface ConsoleOptions {
  ctx: ManagementContext;
  principals: Principals;
  /** The address the listener binds: decides whether the console is on by default. */
  bindHost: string;
  /** The built page; default: dist/console (tests may point elsewhere). */
  assetsDir?: string;
}

export const consoleEnabled = (config: GatewayConfig, bindHost: string): boolean => config.server.console.enabled ?? isLoopbackHost(bindHost);

/** Where the page shows a failed sign-in. */
const signInPage = (message: string) => `${CONSOLE_PREFIX}/#/sign-in?error=${encodeURIComponent(message)}`;

export async function consoleUi(app: FastifyInstance, opts: ConsoleOptions): Promise<void> {
  const { ctx, principals, bindHost } = opts;
  installErrorHandling(app, 'console page');
  app.addHook('onRequest', async (req) => {
    if (!consoleEnabled(ctx.controller.config, bindHost)) {
      throw new GatewayError('not_found', `The console is off here (server.console.enabled; default on only on loopback): ${req.url.split('?')[0]}`);
    }
  });
  app.addHook('onSend', async (_req, reply, payload) => {
    reply.headers(SECURITY_HEADERS);
    return payload;
  });

  const oidc = new OidcSignIn(ctx.incomingAuth);
  const requireIdp = () => {
    const idp = identityProviderOf(ctx.controller.config);
    if (!idp) throw new GatewayError('not_found', 'Sign-in with the identity provider is not configured (server.console.oidc)');
    return idp;
  };
  app.get('/login', async (req, reply) => reply.redirect(await oidc.begin(req, reply, requireIdp()), 302));
  app.get(CALLBACK_PATH.slice(CONSOLE_PREFIX.length), async (req: FastifyRequest, reply: FastifyReply) => {
    let identity;
    try {
      identity = await oidc.complete(req, reply, requireIdp());
      const { principal, proof } = principals.signInWithIdentity({ kind: 'identity', identity, via: 'oidc' });
      ctx.consoleSessions.end(sessionCookieOf(req));
      const { id } = ctx.consoleSessions.create(proof);
      // Beside the cleared state cookie (Fastify appends Set-Cookie headers).
      setSessionCookie(req, reply, id);
      req.log.info({ user: principal.user, role: principal.role, ip: req.ip }, 'console sign-in (identity provider)');
      return reply.redirect(`${CONSOLE_PREFIX}/`, 302);
    } catch (err) {
      if (!(err instanceof GatewayError)) throw err;
      req.log.info({ error: err.code, ip: req.ip, user: identity?.userId }, 'console sign-in refused');
      return reply.redirect(signInPage(err.message), 302);
    }
  });

  const root = opts.assetsDir ?? consoleAssetsDir();
  if (!root) {
    // A gateway built without the console (tsc alone) says so rather than 404.
    app.get('/*', async () => {
      throw new GatewayError('service_unavailable', 'The console was not built: run `npm run build` (it builds console/ into dist/console/)');
    });
    app.get('/', async () => {
      throw new GatewayError('service_unavailable', 'The console was not built: run `npm run build` (it builds console/ into dist/console/)');
    });
    return;
  }
  // `/console` → `/console/`, where the page's relative paths start.
  app.get('', { exposeHeadRoute: false }, async (_req, reply) => reply.redirect(`${CONSOLE_PREFIX}/`, 301));
  await app.register(fastifyStatic, {
    root,
    prefix: '/',
    index: ['index.html'],
    // The .br and .gz files the build wrote beside each file, by the browser's Accept-Encoding.
    preCompressed: true,
    cacheControl: false,
    setHeaders: (reply, path) => void reply.header('cache-control', cacheControlOf(path)),
  });
}
