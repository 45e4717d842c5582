/**
 * Users' sign-ins that come back to the gateway itself (`server.public_url`
 * set): the redirect URI is `<public_url>/oauth/callback`, a route of the
 * gateway's main listener (api/sign-in-callback.ts), so a browser on any
 * machine that reaches the gateway can finish the sign-in.
 *
 * Each flow is recorded in the pending sign-in store (./pending-sign-in-store.ts)
 * under the digest of its `state` (32 random bytes), with the flow's timeout
 * as TTL. The user is handed the flow's consent page (./sign-in-start.ts),
 * which gives the browser the flow's cookie before sending it to the
 * authorization server. A callback that brings the cookie back takes the
 * record (once: a replayed callback finds nothing); the flow is then
 * finished by this process when it started it, else from the record
 * (another replica started it: `resume`). A callback whose `state` is
 * unknown, used or expired is refused with a page that says so; one without
 * the cookie too, but the record stays: the browser the consent page sent
 * can still finish, and whoever holds a copy of the authorization server's
 * URL cannot end someone's sign-in. No code, verifier or token is ever put
 * on the page.
 */
import {
  sameSecret,
  type CallbackAnswer,
  type CallbackListenerOptions,
  type CallbackOutcome,
  type CallbackReceiver,
  type CallbackResult,
} from './callback-listener.js';
import { stateDigest, type PendingSignIn, type PendingSignInStore } from './pending-sign-in-store.js';
import { browserCookieName, newStart, randomKey, signInStartUrl, SignInStarts } from './sign-in-start.js';

/** The path of the gateway's callback route, under `server.public_url`. */
export const SIGN_IN_CALLBACK_PATH = '/oauth/callback';

/** Finishes a flow another process started, from its record. */
export type ResumeSignIn = (record: PendingSignIn, result: CallbackResult) => Promise<CallbackOutcome>;

/** The redirect URI of a sign-in under `publicUrl` (a path in it is kept: a proxy may serve the gateway under one). */
export function signInCallbackUrl(publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, '')}${SIGN_IN_CALLBACK_PATH}`;
}

export class SignInCallbacks {
  /** The flows this process started and waits on, by state digest. */
  private readonly local = new Map<string, (result: CallbackResult) => Promise<CallbackOutcome>>();
  /** The consent pages (`/oauth/start/<id>`) of the same flows. */
  readonly starts: SignInStarts;

  constructor(
    private readonly store: PendingSignInStore,
    private readonly resume: ResumeSignIn,
    private readonly ttlMs: number,
  ) {
    this.starts = new SignInStarts(store, ttlMs);
  }

  /** The receiver of one user's flow (an OpenCallbackReceiver once bound to a public URL, backend server and user). */
  receiver(publicUrl: string, serverUrl: string, user: string, opts: CallbackListenerOptions): CallbackReceiver {
    const digest = stateDigest(opts.expectedState);
    const redirectUrl = signInCallbackUrl(publicUrl);
    const start = newStart();
    this.local.set(digest, opts.onCallback);
    return {
      redirectUrl,
      started: async (flow, authorizationUrl) => {
        const record: PendingSignIn = {
          ...flow,
          backend: opts.backend,
          user,
          server_url: serverUrl,
          redirect_uri: redirectUrl,
          authorization_url: authorizationUrl.href,
          start_digest: start.digest,
          browser_key: randomKey(),
        };
        await this.store.put(digest, record, this.ttlMs);
        return signInStartUrl(publicUrl, start.id);
      },
      close: async () => {
        this.local.delete(digest);
        // An abandoned flow (timed out, revoked, shut down) takes no callback anywhere.
        await this.store.take(digest).catch(() => undefined);
      },
    };
  }

  /** Answers the browser's `GET /oauth/callback?state=…&code=…` (or `error=…`); `cookie` reads the request's cookies. */
  async handle(params: URLSearchParams, cookie: (name: string) => string | undefined): Promise<CallbackAnswer> {
    const state = params.get('state');
    const code = params.get('code');
    const error = params.get('error');
    if (!state) return refused('This address is where a sign-in comes back, and this request names none (no state).');
    if (!code && !error) return refused('The authorization server sent neither a code nor an error.');
    const digest = stateDigest(state);
    const pending = await this.store.find(digest);
    if (!pending) return unknown();
    if (!sameSecret(cookie(browserCookieName(digest)), pending.browser_key)) {
      return {
        status: 400,
        backend: pending.backend,
        title: 'Sign-in not accepted',
        message:
          'this browser did not start the sign-in from the gateway’s sign-in page. Open the sign-in link your MCP client showed (it starts at this gateway) and continue from there.',
      };
    }
    const record = await this.store.take(digest);
    if (!record) return unknown();
    const iss = params.get('iss') ?? undefined;
    const result: CallbackResult = code
      ? { code, ...(iss !== undefined ? { iss } : {}) }
      : { error: error ?? 'unknown_error', description: params.get('error_description') ?? undefined };
    const local = this.local.get(digest);
    const outcome = local ? await local(result) : await this.resume(record, result);
    return {
      status: outcome.ok ? 200 : 400,
      backend: record.backend,
      title: outcome.ok ? 'Signed in' : 'Sign-in failed',
      message: outcome.ok ? 'you are signed in: the gateway may now act for you there. You can close this tab.' : outcome.message,
    };
  }
}

function unknown(): CallbackAnswer {
  return refused('This sign-in is unknown, was already completed, or has expired. Start the sign-in again.');
}

function refused(message: string): CallbackAnswer {
  return { status: 400, title: 'Unknown sign-in', message };
}
