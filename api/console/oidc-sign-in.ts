/**
 * Signing in to the console with the identity provider of `incoming_auth`
 * (`jwt`, `oidc`; `server.console.oidc`): the authorization code flow with
 * PKCE (S256), asking for an access token for this gateway's own audience
 * (RFC 8707 `resource`). The token is verified exactly as an MCP client's
 * would be (runtime/access/), its identity mapped to a management role
 * (`server.management.roles`), and the browser gets a console session; the
 * token itself is dropped.
 *
 * `state` is bound to the browser that started: it is also in a short-lived
 * `HttpOnly` cookie (`SameSite=Lax`, since the provider sends the browser
 * back with a cross-site navigation), so a callback URL planted in another
 * browser signs nobody in. The discovery, PKCE and token requests are the
 * MCP SDK's (the same the gateway uses for its backends).
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parse, serialize } from 'cookie';
import { LRUCache } from 'lru-cache';
import {
  discoverAuthorizationServerMetadata,
  exchangeAuthorization,
  startAuthorization,
  type AuthorizationServerMetadata,
  type OAuthClientInformationMixed,
} from '@modelcontextprotocol/client';
import type { GatewayConfig } from '../../schemas/config.js';
import { GatewayError } from '../../schemas/errors.js';
import type { IncomingAuth } from '../../runtime/access/incoming-auth.js';
import { onTls } from '../management/session-cookie.js';

const STATE_COOKIE = 'gw_console_state';
/** How long a person may take at the provider's pages. */
const FLOW_TTL_MS = 10 * 60_000;
/** Provider metadata is looked up again after this long. */
const METADATA_TTL_MS = 10 * 60_000;

export const CALLBACK_PATH = '/console/callback';

interface Flow {
  verifier: string;
  redirectUri: string;
}

export interface IdentityProviderSettings {
  issuer: string;
  audience: string;
  client: OAuthClientInformationMixed;
  scope: string;
}

/** The provider sign-in the running config allows, or undefined. */
export function identityProviderOf(config: GatewayConfig): IdentityProviderSettings | undefined {
  const auth = config.incoming_auth;
  const oidc = config.server.console.oidc;
  if (!oidc || (auth.type !== 'jwt' && auth.type !== 'oidc') || !auth.issuer || !auth.audience) return undefined;
  return {
    issuer: auth.issuer,
    audience: auth.audience,
    client: { client_id: oidc.client_id, ...(oidc.client_secret ? { client_secret: oidc.client_secret } : {}) },
    scope: oidc.scopes.join(' '),
  };
}

export class OidcSignIn {
  private readonly flows = new LRUCache<string, Flow>({ max: 1000, ttl: FLOW_TTL_MS });
  private readonly metadata = new LRUCache<string, AuthorizationServerMetadata>({ max: 10, ttl: METADATA_TTL_MS });

  constructor(private readonly incomingAuth: IncomingAuth) {}

  /** Starts a flow: where to send the browser. */
  async begin(req: FastifyRequest, reply: FastifyReply, idp: IdentityProviderSettings): Promise<string> {
    const metadata = await this.metadataOf(idp.issuer);
    const state = randomBytes(24).toString('base64url');
    const redirectUri = `${req.protocol}://${req.headers.host ?? ''}${CALLBACK_PATH}`;
    const { authorizationUrl, codeVerifier } = await startAuthorization(idp.issuer, {
      metadata,
      clientInformation: idp.client,
      redirectUrl: redirectUri,
      scope: idp.scope,
      state,
      resource: idp.audience,
    });
    this.flows.set(state, { verifier: codeVerifier, redirectUri });
    reply.header(
      'set-cookie',
      serialize(STATE_COOKIE, state, { httpOnly: true, sameSite: 'lax', path: CALLBACK_PATH, secure: onTls(req), maxAge: FLOW_TTL_MS / 1000 }),
    );
    return authorizationUrl.href;
  }

  /**
   * Completes a flow from the provider's redirect: the verified identity of
   * the access token it issued. Throws a GatewayError whose message the
   * sign-in page shows.
   */
  async complete(req: FastifyRequest, reply: FastifyReply, idp: IdentityProviderSettings) {
    const query = req.query as Record<string, string | undefined>;
    const cookieState = parse(req.headers.cookie ?? '')[STATE_COOKIE];
    reply.header('set-cookie', serialize(STATE_COOKIE, '', { httpOnly: true, sameSite: 'lax', path: CALLBACK_PATH, secure: onTls(req), maxAge: 0 }));
    if (query.error) throw new GatewayError('unauthorized', `The identity provider refused the sign-in: ${query.error_description ?? query.error}`);
    const flow = query.state ? this.flows.get(query.state) : undefined;
    if (!flow || !query.code || cookieState !== query.state) {
      throw new GatewayError('unauthorized', 'This sign-in was not started in this browser, or took longer than 10 minutes: start again');
    }
    this.flows.delete(query.state!);
    let accessToken: string;
    try {
      const tokens = await exchangeAuthorization(idp.issuer, {
        metadata: await this.metadataOf(idp.issuer),
        clientInformation: idp.client,
        authorizationCode: query.code,
        // RFC 9207: the provider names itself in the redirect; the SDK refuses a code from another issuer (mix-up attacks).
        ...(query.iss !== undefined ? { iss: query.iss } : {}),
        codeVerifier: flow.verifier,
        redirectUri: flow.redirectUri,
        resource: idp.audience,
      });
      accessToken = tokens.access_token;
    } catch (err) {
      throw new GatewayError('unauthorized', `The identity provider did not issue a token: ${(err as Error).message}`);
    }
    return this.incomingAuth.authenticate(`Bearer ${accessToken}`);
  }

  private async metadataOf(issuer: string): Promise<AuthorizationServerMetadata> {
    const known = this.metadata.get(issuer);
    if (known) return known;
    const found = await discoverAuthorizationServerMetadata(issuer).catch(() => undefined);
    if (!found)
      throw new GatewayError('service_unavailable', `The identity provider ${issuer} did not answer its discovery`, {
        reason: 'identity_provider_unreachable',
      });
    this.metadata.set(issuer, found);
    return found;
  }
}
