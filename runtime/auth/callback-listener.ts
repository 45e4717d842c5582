/**
 * The loopback listener the browser is redirected to at the end of an
 * authorization (RFC 8252 §7.3). It exists only while a flow waits: opened
 * by the flow, closed as soon as one valid callback was handled.
 *
 * `http://127.0.0.1:<ephemeral port>/callback` unless the config's
 * `redirect_uri` fixes host, port and path. A callback whose `state` is not
 * the flow's is refused and the flow keeps waiting (someone else's request
 * must not end the user's flow). The browser gets a small page once the
 * flow's handler has finished, so it can say whether it worked.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import type { ResumableFlow } from './pending-sign-in-store.js';

export const DEFAULT_CALLBACK_PATH = '/callback';

/** What the authorization server sent back (RFC 6749 §4.1.2). */
/** `iss`: the issuer the authorization server named in its answer (RFC 9207), checked by the SDK against the one it discovered. */
export type CallbackResult = { code: string; iss?: string } | { error: string; description?: string };

export interface CallbackOutcome {
  ok: boolean;
  /** One line for the browser page. */
  message: string;
}

export interface CallbackListenerOptions {
  /** The configured `redirect_uri`; else 127.0.0.1, an ephemeral port and /callback. */
  redirectUri?: string;
  expectedState: string;
  /** Backend name, for the page title. */
  backend: string;
  onCallback: (result: CallbackResult) => Promise<CallbackOutcome>;
}

/** Where a flow's browser comes back: this loopback listener, or the gateway's own route (./sign-in-callbacks.ts). */
export interface CallbackReceiver {
  /** The redirect URI of the flow. */
  readonly redirectUrl: string;
  /**
   * Told once the authorization URL is known, with what another process
   * would need to finish the flow; answers the URL the user is handed
   * (the gateway's consent page), else the authorization URL is.
   */
  started?(flow: ResumableFlow, authorizationUrl: URL): Promise<string>;
  /** The flow ended: nothing comes back here any more. */
  close(): Promise<void>;
}

/** Opens the receiver of one flow (default: a loopback listener, CallbackListener.open). */
export type OpenCallbackReceiver = (opts: CallbackListenerOptions) => Promise<CallbackReceiver>;

export class CallbackListener implements CallbackReceiver {
  private handled = false;

  private constructor(
    private readonly server: Server,
    readonly redirectUrl: string,
  ) {}

  static async open(opts: CallbackListenerOptions): Promise<CallbackListener> {
    const fixed = opts.redirectUri ? new URL(opts.redirectUri) : undefined;
    const path = fixed?.pathname ?? DEFAULT_CALLBACK_PATH;
    const bindHost = fixed?.hostname === '[::1]' ? '::1' : '127.0.0.1';
    const port = fixed?.port ? Number(fixed.port) : 0;
    // The request handler is attached once the listener exists (right after listen, before any request is read).
    const server = createServer();
    // A pending flow must not keep a process alive that is otherwise done.
    server.unref();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, bindHost, () => {
        server.off('error', reject);
        resolve();
      });
    }).catch((err: NodeJS.ErrnoException) => {
      throw new Error(
        err.code === 'EADDRINUSE' ? `the OAuth callback port ${port} (redirect_uri) is in use` : `cannot open the OAuth callback listener: ${err.message}`,
        { cause: err },
      );
    });
    const actualPort = (server.address() as AddressInfo).port;
    const url = fixed ? fixed : new URL(`http://127.0.0.1${path}`);
    url.port = String(actualPort);
    const listener = new CallbackListener(server, url.href);
    server.on('request', (req, res) => listener.handle(req, res, path, opts));
    return listener;
  }

  /** Stops listening; a page still being sent gets a moment to finish. */
  async close(): Promise<void> {
    if (!this.server.listening) return;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    const force = setTimeout(() => this.server.closeAllConnections(), 1000);
    force.unref();
    await closed;
    clearTimeout(force);
  }

  private handle(req: IncomingMessage, res: ServerResponse, path: string, opts: CallbackListenerOptions): void {
    const url = new URL(req.url ?? '/', 'http://callback.invalid');
    if (req.method !== 'GET' || url.pathname !== path) return page(res, 404, opts.backend, 'Not found', 'This is not the callback address.');
    const params = url.searchParams;
    if (!sameSecret(params.get('state'), opts.expectedState)) {
      return page(res, 400, opts.backend, 'Unknown authorization', 'This answer does not belong to the pending authorization (state mismatch).');
    }
    if (this.handled) return page(res, 409, opts.backend, 'Already handled', 'This authorization has already been completed.');
    const code = params.get('code');
    const error = params.get('error');
    if (!code && !error) return page(res, 400, opts.backend, 'Incomplete answer', 'The authorization server sent neither a code nor an error.');
    this.handled = true;
    const iss = params.get('iss') ?? undefined;
    const result: CallbackResult = code
      ? { code, ...(iss !== undefined ? { iss } : {}) }
      : { error: error ?? 'unknown_error', description: params.get('error_description') ?? undefined };
    opts.onCallback(result).then(
      (outcome) => page(res, outcome.ok ? 200 : 400, opts.backend, outcome.ok ? 'Authorized' : 'Authorization failed', outcome.message),
      (err: unknown) => page(res, 500, opts.backend, 'Authorization failed', err instanceof Error ? err.message : String(err)),
    );
  }
}

/** Whether `got` is the secret `expected` (compared in constant time). */
export function sameSecret(got: string | null | undefined, expected: string): boolean {
  if (got === null || got === undefined) return false;
  const a = Buffer.from(got);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function page(res: ServerResponse, status: number, backend: string, title: string, message: string): void {
  res.writeHead(status, CALLBACK_PAGE_HEADERS);
  res.end(callbackPage(backend, title, message));
}

/** No script, nothing loaded, never in a frame (a consent button must not be clickjacked), no form posts anywhere. */
const PAGE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'";

/** The headers of the page a browser lands on at the end of a sign-in. */
export const CALLBACK_PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy': `${PAGE_POLICY}; form-action 'none'`,
} as const;

/**
 * The headers of a page whose form posts to the gateway, which redirects to
 * `redirectOrigin` (browsers check `form-action` on the redirect too).
 */
export function formPageHeaders(redirectOrigin: string): Record<string, string> {
  return {
    ...CALLBACK_PAGE_HEADERS,
    // The POST then carries its Origin (with `no-referrer` a browser sends `Origin: null`); the redirect after it no Referer.
    'referrer-policy': 'same-origin',
    'content-security-policy': `${PAGE_POLICY}; form-action 'self' ${redirectOrigin}`,
  };
}

/** What the browser is shown at the gateway's own sign-in routes. */
export interface CallbackAnswer {
  status: number;
  backend?: string;
  title: string;
  message: string;
}

/** A page's one button: a POST to the page's own URL with an anti-CSRF token. */
export interface PageForm {
  csrf: string;
  button: string;
}

/** The small page a browser lands on at the end of a sign-in (or at its start, with a form): every value escaped. */
export function callbackPage(backend: string | undefined, title: string, message: string, form?: PageForm): string {
  const about = backend === undefined ? '' : `Backend <strong>${escapeHtml(backend)}</strong>: `;
  const button =
    form === undefined
      ? ''
      : `<form method="post"><input type="hidden" name="csrf" value="${escapeHtml(form.csrf)}"><button type="submit">${escapeHtml(form.button)}</button></form>\n`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · MCP gateway</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 36rem; margin: 4rem auto">
<h1>${escapeHtml(title)}</h1>
<p>${about}${escapeHtml(message)}</p>
${button}</body></html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
