/**
 * The gateway's own sign-in pages, when it has a `server.public_url` (a
 * backend with `auth.on_behalf_of.type: user_oauth`), served on the main
 * listener beside `/mcp` as an encapsulated plugin with its own error
 * handler: every answer is a small HTML page, and whatever goes wrong (the
 * shared store unreachable) is a page too, never a stack trace.
 *
 * - `GET /oauth/start/<id>`: the consent page the user is handed (the
 *   backend, the gateway user), its one button a form;
 *   `POST /oauth/start/<id>`: sets the flow's cookie and redirects (303)
 *   to the authorization server (runtime/auth/sign-in-start.ts).
 * - `GET /oauth/callback`: where the browser comes back from the
 *   authorization server (200 signed in, 400 refused: unknown, used or
 *   expired `state`, no cookie from the consent page, or the authorization
 *   server's refusal).
 *
 * The query and the path hold the code, the state or the start id, so
 * nothing here logs the URL (runtime/auth/sign-in-callbacks.ts does the work).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parse, serialize } from 'cookie';
import { CALLBACK_PAGE_HEADERS, callbackPage, formPageHeaders, type CallbackAnswer } from '../runtime/auth/callback-listener.js';
import { SIGN_IN_CALLBACK_PATH, type SignInCallbacks } from '../runtime/auth/sign-in-callbacks.js';
import { CSRF_COOKIE, SIGN_IN_START_PATH, type PageCookie, type StartPage } from '../runtime/auth/sign-in-start.js';
import { httpStatusOf, isExpected, toGatewayError } from './error-mapping.js';

/** The consent form holds one token. */
const FORM_BODY_LIMIT = 4096;

export async function signInCallbackRoute(app: FastifyInstance, opts: { callbacks: SignInCallbacks }): Promise<void> {
  app.setErrorHandler(async (err: unknown, req: FastifyRequest, reply: FastifyReply) => {
    const typed = toGatewayError(err);
    const status = httpStatusOf(typed);
    // The route only: the URL carries the code, the state or the start id.
    const path = req.routeOptions.url ?? SIGN_IN_CALLBACK_PATH;
    if (!isExpected(typed)) req.log.error({ err, path }, 'sign-in page failed');
    else req.log.warn({ path, error: typed.code }, 'sign-in page failed');
    const message =
      status === 503
        ? 'The gateway cannot reach its shared store right now; try the sign-in again in a moment.'
        : 'The sign-in could not be completed; start it again.';
    return answer(reply, { status: status >= 500 ? status : 400, title: 'Sign-in failed', message });
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_req, body, done) =>
    done(null, new URLSearchParams(body as string)),
  );
  const { callbacks } = opts;
  app.get(SIGN_IN_CALLBACK_PATH, async (req, reply) => {
    const cookies = cookiesOf(req);
    return answer(reply, await callbacks.handle(new URL(req.url, 'http://callback.invalid').searchParams, (name) => cookies[name]));
  });
  app.get<{ Params: { id: string } }>(`${SIGN_IN_START_PATH}/:id`, async (req, reply) => {
    return answer(reply, await callbacks.starts.page(req.params.id));
  });
  app.post<{ Params: { id: string } }>(`${SIGN_IN_START_PATH}/:id`, { bodyLimit: FORM_BODY_LIMIT }, async (req, reply) => {
    const form = req.body instanceof URLSearchParams ? req.body : new URLSearchParams();
    const consent = await callbacks.starts.consent(req.params.id, form.get('csrf') ?? undefined, cookiesOf(req)[CSRF_COOKIE], req.headers.origin);
    if (!('location' in consent)) return answer(reply, consent);
    setCookie(reply, consent.cookie);
    return reply.code(303).headers({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', location: consent.location }).send();
  });
}

function cookiesOf(req: FastifyRequest): Record<string, string | undefined> {
  return req.headers.cookie ? parse(req.headers.cookie) : {};
}

function setCookie(reply: FastifyReply, c: PageCookie): void {
  reply.header('set-cookie', serialize(c.name, c.value, { httpOnly: true, sameSite: c.sameSite, path: c.path, secure: c.secure, maxAge: c.maxAgeS }));
}

function answer(reply: FastifyReply, a: StartPage | CallbackAnswer): FastifyReply {
  const page: StartPage = a;
  if (page.cookie) setCookie(reply, page.cookie);
  return reply
    .code(page.status)
    .headers(page.redirectOrigin === undefined ? CALLBACK_PAGE_HEADERS : formPageHeaders(page.redirectOrigin))
    .send(callbackPage(page.backend, page.title, page.message, page.form));
}
