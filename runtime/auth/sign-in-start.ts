/**
 * The gateway's consent page, where a user's sign-in starts when the gateway
 * has a `server.public_url`: the user is handed `<public_url>/oauth/start/<id>`,
 * never the authorization server's URL (MCP security best practices: a
 * proxy asks for consent on a page of its own before it sends a browser to
 * a third-party authorization server).
 *
 * - `GET /oauth/start/<id>` names the backend and the gateway user the
 *   sign-in is for, with one button (a POST carrying an anti-CSRF token,
 *   double-submitted: a `SameSite=Strict` cookie scoped to this page, and
 *   the form field, its HMAC over the id), so another site cannot press
 *   it for a browser that never saw the page.
 * - `POST` gives the browser the flow's cookie (`browser_key` of the
 *   pending record, HttpOnly, `SameSite=Lax` since the authorization server
 *   sends the browser back with a cross-site navigation, `Path=<prefix>/oauth`)
 *   and sends it (303) to the authorization server.
 * - `GET /oauth/callback` (./sign-in-callbacks.ts) then takes the code only
 *   from a browser that brings that cookie back: one that was handed the
 *   authorization server's URL by someone else, without passing this page,
 *   cannot land its tokens in the user's record.
 *
 * The id is 32 random bytes, kept as its digest only; it lives as long as
 * the flow (the record it leads to), and is not the `state`.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { sameSecret, type CallbackAnswer, type PageForm } from './callback-listener.js';
import type { PendingSignIn, PendingSignInStore } from './pending-sign-in-store.js';

/** The path of the consent page, under `server.public_url`: `<path>/<id>`. */
export const SIGN_IN_START_PATH = '/oauth/start';

/** One cookie to set; the api layer writes it (`HttpOnly` always). */
export interface PageCookie {
  name: string;
  value: string;
  path: string;
  sameSite: 'strict' | 'lax';
  secure: boolean;
  maxAgeS: number;
}

/** The consent page (200, with its form and anti-CSRF cookie), or a refusal page. */
export interface StartPage extends CallbackAnswer {
  form?: PageForm;
  /** The origin the form's POST redirects to (the page's `form-action`). */
  redirectOrigin?: string;
  cookie?: PageCookie;
}

/** Where the consent page's POST sends the browser, with the flow's cookie; or a refusal page. */
export type Consent = { location: string; cookie: PageCookie } | CallbackAnswer;

/** A new flow's start id (for its URL) and the digest it is kept under. */
export function newStart(): { id: string; digest: string } {
  const id = randomBytes(32).toString('base64url');
  return { id, digest: startDigest(id) };
}

/** A random value for a cookie (the flow's browser key, the anti-CSRF secret). */
export const randomKey = (): string => randomBytes(32).toString('base64url');

/** The URL the user is handed: the consent page of this flow (a path in `publicUrl` is kept). */
export function signInStartUrl(publicUrl: string, id: string): string {
  return `${publicUrl.replace(/\/+$/, '')}${SIGN_IN_START_PATH}/${id}`;
}

/** The cookie the callback of the flow whose state digest is `digest` looks for (one per flow: a browser may run several). */
export function browserCookieName(digest: string): string {
  return `gw_sign_in_${digest.slice(0, 16)}`;
}

/** The anti-CSRF cookie of the consent page (scoped to its path). */
export const CSRF_COOKIE = 'gw_consent';

export class SignInStarts {
  constructor(
    private readonly store: PendingSignInStore,
    private readonly ttlMs: number,
  ) {}

  /** `GET /oauth/start/<id>`: the consent page, naming the backend and the user. */
  async page(id: string): Promise<StartPage> {
    const found = await this.store.findByStart(startDigest(id));
    if (!found) return unknownStart();
    const { record } = found;
    const secret = randomKey();
    return {
      status: 200,
      backend: record.backend,
      title: `Sign in to ${record.backend}`,
      message:
        `you are about to sign in at ${record.backend}'s authorization server so that the gateway can act for ${record.user} at ${record.backend}. ` +
        `If you are not ${record.user}, close this page.`,
      form: { csrf: csrfToken(secret, id), button: `Continue to ${record.backend}` },
      redirectOrigin: new URL(record.authorization_url).origin,
      cookie: {
        name: CSRF_COOKIE,
        value: secret,
        path: `${oauthPath(record)}/start/${id}`,
        sameSite: 'strict',
        secure: onTls(record),
        maxAgeS: this.maxAgeS(),
      },
    };
  }

  /**
   * `POST /oauth/start/<id>` with the form's token and the anti-CSRF cookie:
   * the flow's cookie and the authorization server's URL. `origin`, when the
   * browser sent one, must be the gateway's public one.
   */
  async consent(id: string, token: string | undefined, csrfCookie: string | undefined, origin: string | undefined): Promise<Consent> {
    const found = await this.store.findByStart(startDigest(id));
    if (!found) return unknownStart();
    const { digest, record } = found;
    const sameOrigin = origin === undefined || origin === new URL(record.redirect_uri).origin;
    if (!sameOrigin || csrfCookie === undefined || !sameSecret(token, csrfToken(csrfCookie, id))) {
      return {
        status: 400,
        backend: record.backend,
        title: 'Sign-in not started',
        message: 'This request did not come from the sign-in page in this browser. Open the sign-in link again and press its button.',
      };
    }
    return {
      location: record.authorization_url,
      cookie: {
        name: browserCookieName(digest),
        value: record.browser_key,
        path: oauthPath(record),
        sameSite: 'lax',
        secure: onTls(record),
        maxAgeS: this.maxAgeS(),
      },
    };
  }

  private maxAgeS(): number {
    return Math.ceil(this.ttlMs / 1000);
  }
}

function startDigest(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}

/** The form's token: bound to this browser's anti-CSRF cookie and to this flow's id. */
function csrfToken(secret: string, id: string): string {
  return createHmac('sha256', secret).update(id).digest('base64url');
}

/** `<prefix>/oauth` of the gateway's public URL (its callback's directory): the flow's cookies go nowhere else. */
function oauthPath(record: PendingSignIn): string {
  return new URL(record.redirect_uri).pathname.replace(/\/[^/]*$/, '');
}

/** Cookies are `Secure` when the browser reaches the gateway over TLS. */
function onTls(record: PendingSignIn): boolean {
  return new URL(record.redirect_uri).protocol === 'https:';
}

function unknownStart(): CallbackAnswer {
  return {
    status: 400,
    title: 'Unknown sign-in',
    message: 'This sign-in link is unknown, was already used to sign in, or has expired. Ask your MCP client for a new one (call the tool again).',
  };
}
