/**
 * The typed errors of outgoing OAuth. The connect path learns from
 * `isAuthorizationRequired` that a backend waits for the user's consent,
 * which no retry can give: the controller parks the backend until a
 * re-authentication flow completes instead of retrying it in a loop.
 */
import { UnauthorizedError } from '@modelcontextprotocol/client';
import { GatewayError } from '../../schemas/errors.js';

/** The backend needs the user to authorize the gateway (again) in a browser. */
export class AuthorizationRequiredError extends GatewayError {
  readonly backend: string;
  /** Why, for the condition's message: e.g. `not authorized yet`, `the refresh token was rejected`. */
  readonly why: string;
  /**
   * Set when the backend demanded a scope the token lacks (403
   * insufficient_scope): only the calls that need it fail, the backend as a
   * whole still works, so this one should not take it out of service.
   */
  readonly stepUpScope?: string;

  constructor(backend: string, why: string, stepUpScope?: string) {
    super('backend_unavailable', `Backend '${backend}' needs authorization (${why}): run \`gateway-client reauth ${backend}\``, {
      backend,
      reason: 'authorization_required',
      ...(stepUpScope ? { scope: stepUpScope } : {}),
    });
    this.backend = backend;
    this.why = why;
    this.stepUpScope = stepUpScope;
  }
}

/** A token could not be obtained for a passing reason (the authorization server was unreachable): worth a retry. */
export class TokenUnavailableError extends GatewayError {
  constructor(backend: string, why: string) {
    super('backend_unavailable', `Backend '${backend}': no valid access token (${why})`, { backend, reason: 'token_unavailable' });
  }
}

/** `POST /reauth/{name}` for a backend whose config has no `auth.type: oauth` (or, with a user, no `on_behalf_of.type: user_oauth`). */
export class ReauthNotSupportedError extends GatewayError {
  constructor(backend: string, user?: string) {
    super(
      'bad_request',
      user === undefined
        ? `Backend '${backend}' does not use OAuth: no outgoing authentication configured (auth.type: oauth), so there is nothing to re-authenticate`
        : `Backend '${backend}' does not act for each user (auth.on_behalf_of.type: user_oauth), so user '${user}' has nothing to sign in to`,
      { backend, ...(user === undefined ? {} : { user }) },
    );
  }
}

/**
 * Whether `err`, or any error in its `cause` chain, means "the user must
 * authorize": ours, or the SDK's UnauthorizedError (its transports throw it
 * when `auth()` ends in a redirect).
 */
export function isAuthorizationRequired(err: unknown): boolean {
  return findAuthorizationRequired(err) !== undefined;
}

/** The error of the chain that says authorization is required (ours preferred, for its message). */
export function findAuthorizationRequired(err: unknown): AuthorizationRequiredError | UnauthorizedError | undefined {
  let sdk: UnauthorizedError | undefined;
  for (let e = err, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) {
    if (e instanceof AuthorizationRequiredError) return e;
    if (e instanceof UnauthorizedError) sdk ??= e;
  }
  return sdk;
}

/**
 * The authorization server refused to exchange a caller's token for one
 * meant for a backend (RFC 8693; its `error` code: `invalid_target`,
 * `invalid_grant`, `unauthorized_client`, …). It concerns this caller and
 * this backend only: other callers are still served.
 */
export class TokenExchangeRefusedError extends GatewayError {
  readonly issuerError: string;

  constructor(backend: string, tokenEndpoint: string, issuerError: string, description?: string) {
    const why = description ? `${issuerError}: ${description}` : issuerError;
    super('token_exchange_refused', `Backend '${backend}': the authorization server at ${tokenEndpoint} refused a token for this caller (${why})`, {
      backend,
      reason: 'token_exchange_refused',
      issuer_error: issuerError,
      ...(description ? { issuer_error_description: description } : {}),
    });
    this.issuerError = issuerError;
  }
}

/**
 * A backend that acts for each caller (`auth.on_behalf_of`) was called by
 * one with no token of its own to exchange (anonymous, a local token, the
 * management token): refused for this caller only, before the backend sees
 * anything.
 */
export class CallerTokenRequiredError extends GatewayError {
  constructor(backend: string) {
    super(
      'token_exchange_refused',
      `Backend '${backend}' acts for each caller and needs the caller's own token (a JWT accepted by incoming_auth type jwt or oidc); this caller has none`,
      { backend, reason: 'no_caller_token' },
    );
  }
}

/**
 * A backend that acts for each user (`auth.on_behalf_of.type: user_oauth`)
 * holds no usable token for this user: the user must sign in to the
 * backend's authorization server, at `authorization_url` (a flow started for
 * this user and waiting). It concerns this user's calls only; the backend
 * stays in service for the others. The data carries the URL so that a
 * client able to open it (URL-mode elicitation) can be handed it.
 */
export class UserAuthorizationRequiredError extends GatewayError {
  readonly authorizationUrl: string;

  constructor(backend: string, user: string, authorizationUrl: string) {
    super(
      'user_authorization_required',
      `Backend '${backend}' acts for each user and user '${user}' has not signed in to it (or the sign-in was revoked): open ${authorizationUrl} , or run \`gateway-client reauth ${backend} --user ${user}\``,
      { backend, user, reason: 'user_authorization_required', authorization_url: authorizationUrl },
    );
    this.authorizationUrl = authorizationUrl;
  }
}

/** A backend that acts for each user was called by nobody in particular (anonymous, the management API): no user's token to send. */
export class UserIdentityRequiredError extends GatewayError {
  constructor(backend: string) {
    super(
      'user_authorization_required',
      `Backend '${backend}' acts for each user (user_oauth) and this caller has no user id (incoming_auth identifies users)`,
      {
        backend,
        reason: 'no_user',
      },
    );
  }
}
