/**
 * What a backend that acts for each caller (`auth.on_behalf_of`) receives
 * with that caller's requests: the token the gateway obtained for this
 * caller and this backend, as the request's own `Authorization` over the
 * shared connection: exchanged (`token_exchange`: RFC 8693, cached per
 * identity and backend by runtime/auth/token-exchange.ts), or the one the
 * user granted by signing in (`user_oauth`: runtime/auth/user-sign-ins.ts). The connection's own traffic
 * (initialize, lists, pings) carries no caller token; the caller's own
 * incoming token never reaches the backend.
 */
import type { BackendSpec, TokenExchangeSpec, UserOAuthSpec } from '../../schemas/config.js';
import type { CallerContext } from '../routing/caller.js';
import type { TokenExchanger } from '../auth/token-exchange.js';
import type { UserSignIns } from '../auth/user-sign-ins.js';
import { CallerTokenRequiredError, UserIdentityRequiredError } from '../auth/errors.js';

export interface CallerCredentials {
  /** The `Authorization` value for this caller's request; rejects (typed) when there is none to give. */
  authorizationFor(caller: CallerContext | undefined): Promise<string>;
  /**
   * The backend answered 401 to `authorization`, sent for this caller: that
   * token is dropped, and this resolves with another to try once more, or
   * rejects with what a caller without one gets (a user_oauth user is asked
   * to sign in again, as at first). Absent: the 401 stands.
   */
  refused?(caller: CallerContext | undefined, authorization: string): Promise<string>;
}

/** The methods made for a caller; everything else the connection sends for itself. */
export const CALLER_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read', 'completion/complete']);

/** Where the per-caller tokens come from. */
export interface CallerTokenSources {
  exchanger: TokenExchanger;
  signIns: UserSignIns;
}

export function callerCredentials(backend: string, spec: BackendSpec, sources: CallerTokenSources): CallerCredentials | undefined {
  if (spec.type === 'stdio' || spec.auth === undefined || !('on_behalf_of' in spec.auth)) return undefined;
  const obo = spec.auth.on_behalf_of;
  if (obo.type === 'user_oauth') {
    const signIn: UserOAuthSpec = obo;
    return {
      authorizationFor(caller) {
        const user = caller?.userId;
        if (user === undefined) return Promise.reject(new UserIdentityRequiredError(backend));
        return sources.signIns.authorizationFor(backend, spec, signIn, user);
      },
      async refused(caller, authorization) {
        const user = caller?.userId;
        if (user === undefined) throw new UserIdentityRequiredError(backend);
        await sources.signIns.tokenRefused(backend, user, authorization);
        return sources.signIns.authorizationFor(backend, spec, signIn, user);
      },
    };
  }
  const { exchanger } = sources;
  const exchange: TokenExchangeSpec = obo;
  return {
    async authorizationFor(caller) {
      const credential = caller?.incomingCredential;
      if (credential === undefined) throw new CallerTokenRequiredError(backend);
      return `Bearer ${await exchanger.tokenFor(backend, exchange, credential)}`;
    },
  };
}
