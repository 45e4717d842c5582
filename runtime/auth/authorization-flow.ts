/**
 * One interactive authorization of one backend, from the authorization URL
 * to stored tokens:
 *
 * 1. open the loopback callback listener (its URL is the redirect URI);
 * 2. `auth()` with a FlowOAuthProvider: discovery (RFC 9728, RFC 8414 /
 *    OpenID), client (configured, metadata document, or dynamic
 *    registration), PKCE S256, `state`, `resource` (RFC 8707) and the scope;
 *    it ends in a redirect, whose URL `start()` returns at once;
 * 3. the browser comes back to the listener; with the right `state`, the
 *    code is exchanged by `auth()` again, and the tokens are stored;
 * 4. `done` settles: resolved, or rejected with the reason (the user
 *    refused, the exchange failed, nobody came back within the timeout).
 */
import { randomBytes } from 'node:crypto';
import { auth } from '@modelcontextprotocol/client';
import { CallbackListener, type CallbackOutcome, type CallbackReceiver, type CallbackResult, type OpenCallbackReceiver } from './callback-listener.js';
import { FlowOAuthProvider } from './flow-provider.js';
import type { OAuthBackendState } from './oauth-backend-state.js';

export interface AuthorizationFlowOptions {
  /** How long to wait for the browser to come back. */
  timeoutMs: number;
  /** Where the browser comes back (a user's sign-in with `server.public_url`: the gateway's route); default a loopback listener. */
  open?: OpenCallbackReceiver;
}

export class AuthorizationFlow {
  /** Settles once: resolved when tokens are stored, rejected with the reason otherwise. */
  readonly done: Promise<void>;
  private settle!: (error?: Error) => void;
  private timer?: NodeJS.Timeout;
  private finished = false;

  private constructor(
    readonly backend: string,
    /** The URL the user is handed: the authorization server's, or the gateway's consent page that leads there. */
    readonly authorizationUrl: string,
    private readonly listener: CallbackReceiver,
  ) {
    this.done = new Promise<void>((resolve, reject) => {
      this.settle = (error) => (error ? reject(error) : resolve());
    });
    // Whoever starts a flow may never look at `done`; its failure is reported through events.
    this.done.catch(() => undefined);
  }

  /** Resolves with the flow once the authorization URL is known. */
  static async start(backend: OAuthBackendState, opts: AuthorizationFlowOptions): Promise<AuthorizationFlow> {
    const expectedState = randomBytes(32).toString('base64url');
    let flow: AuthorizationFlow | undefined;
    let provider: FlowOAuthProvider | undefined;
    const scope = backend.flowScope();
    const resourceMetadataUrl = backend.challenge?.resourceMetadataUrl;
    const open: OpenCallbackReceiver = opts.open ?? CallbackListener.open;
    const listener = await open({
      redirectUri: backend.spec.redirect_uri,
      expectedState,
      backend: backend.name,
      onCallback: (result) => (flow && provider ? flow.complete(backend, provider, result, scope, resourceMetadataUrl) : notReady()),
    });
    try {
      provider = new FlowOAuthProvider(backend, listener.redirectUrl, expectedState);
      await provider.discoverFirst(backend.serverUrl, resourceMetadataUrl);
      const result = await auth(provider, { serverUrl: backend.serverUrl, scope, resourceMetadataUrl });
      if (result !== 'REDIRECT' || !provider.authorizationUrl) {
        throw new Error('the authorization server did not ask for the user (no authorization URL)');
      }
      const handedOut = (await listener.started?.(provider.resumable(scope, resourceMetadataUrl), provider.authorizationUrl)) ?? provider.authorizationUrl.href;
      flow = new AuthorizationFlow(backend.name, handedOut, listener);
      flow.timer = setTimeout(() => flow?.fail(new Error(`nobody completed the authorization within ${Math.round(opts.timeoutMs / 1000)} s`)), opts.timeoutMs);
      flow.timer.unref();
      backend.log?.info({ backend: backend.name, redirect_uri: listener.redirectUrl }, 'OAuth authorization started; waiting for the browser');
      return flow;
    } catch (err) {
      await listener.close();
      throw err;
    }
  }

  /** Ends a pending flow (shutdown, backend removed or reconfigured). */
  cancel(reason: string): void {
    this.fail(new Error(reason));
  }

  /** The browser came back to another replica, which finished the flow (`failure` unset: tokens stored) or not. */
  endedElsewhere(failure?: string): void {
    if (failure === undefined) this.finish();
    else this.fail(new Error(failure));
  }

  private async complete(
    backend: OAuthBackendState,
    provider: FlowOAuthProvider,
    result: CallbackResult,
    scope: string | undefined,
    resourceMetadataUrl: URL | undefined,
  ): Promise<CallbackOutcome> {
    if (this.finished) return { ok: false, message: 'This authorization was already abandoned; start a new one.' };
    const failure = await exchangeCode(backend, provider, result, scope, resourceMetadataUrl);
    if (failure !== undefined) {
      this.fail(new Error(failure));
      return { ok: false, message: `${failure}.` };
    }
    this.finish();
    return AUTHORIZED;
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.timer);
    // The browser's page is answered first (close() lets it finish).
    void this.listener.close();
    this.settle();
  }

  private fail(error: Error): void {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.timer);
    void this.listener.close();
    this.settle(error);
  }
}

export const AUTHORIZED: CallbackOutcome = { ok: true, message: 'the gateway is authorized. You can close this tab.' };

/**
 * The end of a flow: the code the browser brought back exchanged for tokens
 * (stored by the provider), or why not (one sentence, no secret in it).
 */
export async function exchangeCode(
  backend: OAuthBackendState,
  provider: FlowOAuthProvider,
  result: CallbackResult,
  scope: string | undefined,
  resourceMetadataUrl: URL | undefined,
): Promise<string | undefined> {
  if ('error' in result) return `the authorization server answered ${result.error}${result.description ? `: ${result.description}` : ''}`;
  try {
    const outcome = await auth(provider, { serverUrl: backend.serverUrl, authorizationCode: result.code, iss: result.iss, scope, resourceMetadataUrl });
    if (outcome !== 'AUTHORIZED') throw new Error('the authorization code was not accepted');
  } catch (err) {
    return `exchanging the authorization code failed: ${err instanceof Error ? err.message : String(err)}`;
  }
  backend.log?.info({ backend: backend.name }, 'OAuth authorization completed');
  return undefined;
}

async function notReady(): Promise<CallbackOutcome> {
  return { ok: false, message: 'The authorization has not started yet.' };
}
