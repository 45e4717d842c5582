/**
 * `GET /oauth/callback`: where a user's browser comes back from a backend's
 * authorization server when the gateway has a `server.public_url` (a
 * backend with `auth.on_behalf_of.type: user_oauth`). It is served on the
 * main listener, beside `/mcp`, as an encapsulated plugin with its own error
 * handler: every answer is a small HTML page (200 signed in, 400 refused:
 * unknown, used or expired `state`, or the authorization server's refusal),
 * and whatever goes wrong (the shared store unreachable) is a page too,
 * never a stack trace. The query holds the code and the state, so nothing
 * here logs the URL (runtime/auth/sign-in-callbacks.ts does the work).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CALLBACK_PAGE_HEADERS, callbackPage } from '../runtime/auth/callback-listener.js';
import { SIGN_IN_CALLBACK_PATH, type CallbackAnswer, type SignInCallbacks } from '../runtime/auth/sign-in-callbacks.js';
import { httpStatusOf, isExpected, toGatewayError } from './error-mapping.js';

export async function signInCallbackRoute(app: FastifyInstance, opts: { callbacks: SignInCallbacks }): Promise<void> {
  app.setErrorHandler(async (err: unknown, req: FastifyRequest, reply: FastifyReply) => {
    const typed = toGatewayError(err);
    const status = httpStatusOf(typed);
    // The path only: the query carries the code and the state.
    if (!isExpected(typed)) req.log.error({ err, path: SIGN_IN_CALLBACK_PATH }, 'sign-in callback failed');
    else req.log.warn({ path: SIGN_IN_CALLBACK_PATH, error: typed.code }, 'sign-in callback failed');
    const message =
      status === 503
        ? 'The gateway cannot reach its shared store right now; try the sign-in again in a moment.'
        : 'The sign-in could not be completed; start it again.';
    return answer(reply, { status: status >= 500 ? status : 400, title: 'Sign-in failed', message });
  });
  app.get(SIGN_IN_CALLBACK_PATH, async (req, reply) => {
    return answer(reply, await opts.callbacks.handle(new URL(req.url, 'http://callback.invalid').searchParams));
  });
}

function answer(reply: FastifyReply, a: CallbackAnswer): FastifyReply {
  return reply
    .code(a.status)
    .headers(CALLBACK_PAGE_HEADERS)
    .send(callbackPage(a.backend, a.title, a.message));
}
