/**
 * The one place a backend spec becomes a transport. Every transport it makes
 * is a BackendTransport wrapped in ordered delivery (notifications are never
 * overtaken by their result), so the rest of the runtime deals with one
 * interface whatever carries the backend:
 *
 * - `stdio`: a process group, or the hardened container the container steps
 *   placed it in;
 * - `streamable-http`: the Node-native client (see docs/performance.md), with
 *   or without OAuth, so a wire fix reaches every HTTP backend;
 * - `sse`: the SDK's (v2) client (the legacy transport), with or without OAuth.
 */
import { SSEClientTransport, type FetchLike } from '@modelcontextprotocol/client';
import type { BackendSpec, HttpBackendSpec, StdioBackendSpec } from '../../schemas/config.js';
import type { EnsuredImage, ImagePlan } from '../containers/container-manager.js';
import { backendHeaders } from '../auth/auth-headers.js';
import type { BackendTransport, TransportHooks } from './backend-transport.js';
import { ProcessGroupStdioTransport } from './process-group-stdio-transport.js';
import { NodeStreamableHttpClientTransport, type HttpAuth } from './node-streamable-http-client-transport.js';
import { OrderedDeliveryTransport, OrderedStdioDeliveryTransport } from './ordered-delivery.js';

/** Starts a stdio backend's hardened container (runtime/containers/container-manager.ts). */
export interface ContainerLauncher {
  createTransport(name: string, spec: StdioBackendSpec, plan: ImagePlan, image: EnsuredImage): BackendTransport;
}

/** Where a stdio backend runs, as the container steps decided; HTTP backends run where their URL says. */
export type Placement = { mode: 'process' } | { mode: 'container'; containers: ContainerLauncher; plan: ImagePlan; image: EnsuredImage };

export const AS_PROCESS: Placement = { mode: 'process' };

/** The OAuth of backends with `auth.type: oauth` (runtime/auth/backend-auth-manager.ts). */
export interface OAuthSource {
  httpAuth(name: string, spec: HttpBackendSpec): HttpAuth;
}

export function createBackendTransport(
  name: string,
  spec: BackendSpec,
  placement: Placement,
  auth: OAuthSource | undefined,
  hooks: TransportHooks = {},
): OrderedDeliveryTransport {
  const raw = rawTransport(name, spec, placement, auth);
  // Hooks of a process or container; an HTTP transport has neither output nor exit and never calls them.
  raw.onstderr = hooks.onstderr;
  raw.onexit = hooks.onexit;
  return spec.type === 'stdio' ? new OrderedStdioDeliveryTransport(raw) : new OrderedDeliveryTransport(raw);
}

function rawTransport(name: string, spec: BackendSpec, placement: Placement, source: OAuthSource | undefined): BackendTransport {
  if (spec.type === 'stdio') {
    if (placement.mode === 'container') return placement.containers.createTransport(name, spec, placement.plan, placement.image);
    return new ProcessGroupStdioTransport({ command: spec.command, args: spec.args, env: spec.env, cwd: spec.cwd });
  }
  const headers = backendHeaders(spec);
  const auth = spec.auth?.type === 'oauth' ? requireSource(name, source).httpAuth(name, spec) : undefined;
  const callerAuthorization = spec.auth !== undefined && 'on_behalf_of' in spec.auth && spec.auth.on_behalf_of !== undefined;
  if (spec.type === 'streamable-http') return new NodeStreamableHttpClientTransport(new URL(spec.url), { headers, auth, callerAuthorization });
  // The SDK's SSE transport sends the configured headers on the event stream's GET and on every POST.
  if (auth) return new SSEClientTransport(new URL(spec.url), { authProvider: auth.provider, requestInit: { headers }, fetch: observing(auth) });
  return new SSEClientTransport(new URL(spec.url), { requestInit: { headers } });
}

function requireSource(name: string, source: OAuthSource | undefined): OAuthSource {
  if (!source) throw new Error(`Backend '${name}' uses OAuth, but this gateway has no outgoing OAuth`);
  return source;
}

/** A fetch for the SDK's SSE transport that reports every challenge, as our HTTP transport does. */
function observing(auth: HttpAuth): FetchLike {
  const inner = auth.fetch ?? fetch;
  return async (url, init) => {
    const res = await inner(url, init);
    if (res.status === 401 || res.status === 403) auth.onChallenge?.(res.status, res);
    return res;
  };
}
