/**
 * The gateway as an OAuth 2.1 protected resource (MCP authorization,
 * 2025-11-25): its resource identifier, its protected resource metadata
 * (RFC 9728) at `/.well-known/oauth-protected-resource` (the root form, and
 * `/mcp` and `/sse` inserted after it), and the `WWW-Authenticate` challenge
 * (RFC 6750) of a refusal, which points the client at that metadata.
 *
 * With `jwt` or `oidc` the resource identifier is `incoming_auth.audience`,
 * whatever path the metadata was asked for: a token is good for this
 * gateway only if minted for it. With `local` there is no authorization
 * server; the identifier is the URL the client used. `anonymous` protects
 * nothing, and the metadata is not found.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IncomingAuthSpec } from '../../schemas/access-config.js';
import { GatewayError, type BearerRefusal } from '../../schemas/errors.js';
import { GATEWAY_NAME } from '../../runtime/version.js';
import type { IncomingAuth } from '../../runtime/access/incoming-auth.js';

export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/** The MCP endpoint a request belongs to: `/sse` for the legacy transport (its `/messages` too), else `/mcp`. */
export function endpointOf(url: string): '/mcp' | '/sse' {
  return url.startsWith('/sse') || url.startsWith('/messages') ? '/sse' : '/mcp';
}

/** Where the client finds the metadata of the resource it asked for. */
function metadataUrl(req: FastifyRequest, auth: IncomingAuthSpec): string {
  if (auth.audience) {
    const audience = new URL(auth.audience);
    return `${audience.origin}${PROTECTED_RESOURCE_PATH}${audience.pathname === '/' ? '' : audience.pathname}`;
  }
  return `${req.protocol}://${req.host}${PROTECTED_RESOURCE_PATH}${endpointOf(req.url)}`;
}

/** The scopes a client should ask for: the required ones, else the advertised ones. */
function scopesOf(auth: IncomingAuthSpec): string[] {
  return auth.required_scopes?.length ? auth.required_scopes : (auth.scopes_supported ?? []);
}

/** RFC 6750 section 3, with the MCP authorization spec's `resource_metadata`. */
export function bearerChallenge(req: FastifyRequest, auth: IncomingAuthSpec, refusal: BearerRefusal): string {
  const scope = refusal.scope ?? scopesOf(auth).join(' ');
  const params = [
    ...(refusal.error ? [`error="${refusal.error}"`] : []),
    ...(refusal.description ? [`error_description="${refusal.description}"`] : []),
    ...(scope ? [`scope="${scope}"`] : []),
    `resource_metadata="${metadataUrl(req, auth)}"`,
  ];
  return `Bearer ${params.join(', ')}`;
}

export async function protectedResourceRoutes(app: FastifyInstance, auth: IncomingAuth): Promise<void> {
  const answer = async (req: FastifyRequest) => {
    const spec = auth.settings;
    const suffix = req.url.split('?')[0].slice(PROTECTED_RESOURCE_PATH.length).replace(/\/+$/, '');
    const resource = resourceFor(req, spec, suffix);
    if (resource === undefined) throw new GatewayError('not_found', `No protected resource metadata at ${req.url.split('?')[0]}`);
    const scopes = spec.scopes_supported ?? spec.required_scopes ?? [];
    return {
      resource,
      ...(spec.issuer ? { authorization_servers: [spec.issuer] } : {}),
      ...(scopes.length > 0 ? { scopes_supported: scopes } : {}),
      bearer_methods_supported: ['header'],
      resource_name: GATEWAY_NAME,
    };
  };
  app.get(PROTECTED_RESOURCE_PATH, answer);
  app.get(`${PROTECTED_RESOURCE_PATH}/*`, answer);
}

/** The resource whose metadata lives at this suffix of the well-known path, if the gateway is one. */
function resourceFor(req: FastifyRequest, spec: IncomingAuthSpec, suffix: string): string | undefined {
  if (spec.type === 'anonymous') return undefined;
  if (spec.audience) {
    const path = new URL(spec.audience).pathname.replace(/\/+$/, '');
    return ['', '/mcp', '/sse', path].includes(suffix) ? spec.audience : undefined;
  }
  return ['', '/mcp', '/sse'].includes(suffix) ? `${req.protocol}://${req.host}${suffix}` : undefined;
}
