/**
 * The client transport of an `auth.type: oauth` backend: the SDK's own
 * Streamable HTTP or SSE client transport with our provider as
 * `authProvider`, so attaching the token, the refresh on a 401 and the
 * scope step-up on a 403 are the SDK's work. (Backends without OAuth use the
 * Node-native streamable HTTP transport, see create-transport.ts; that one
 * has no notion of an auth provider.)
 */
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { HttpBackendSpec } from '../../schemas/config.js';
import { backendHeaders } from './auth-headers.js';
import type { ConnectionOAuthProvider } from './connection-provider.js';
import type { OAuthBackendState } from './oauth-backend-state.js';

export function createOAuthTransport(spec: HttpBackendSpec, provider: ConnectionOAuthProvider, backend: OAuthBackendState): Transport {
  const url = new URL(spec.url);
  const options = {
    authProvider: provider,
    requestInit: { headers: backendHeaders(spec) },
    // Notes each WWW-Authenticate challenge (scope, resource metadata) for the next authorization.
    fetch: backend.observingFetch(),
  };
  return spec.type === 'streamable-http' ? new StreamableHTTPClientTransport(url, options) : new SSEClientTransport(url, options);
}
