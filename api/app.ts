/**
 * The Fastify application: MCP endpoints at the root (`/mcp`, `/sse`), their
 * protected resource metadata under `/.well-known/`, and the management API
 * under `/manage/v1`, each MCP and management an encapsulated plugin, and
 * the web console under `/console` (api/console/) beside the management API,
 * and where users' sign-ins to backends come back (`/oauth/callback`,
 * api/sign-in-callback.ts) beside the MCP endpoints.
 * One listener serves both, or (`server.management.port`) each side has a
 * listener of its own and the other's paths are 404 there.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from '../runtime/observability/logging/logger.js';
import { streamableHttpRoutes } from './mcp/streamable-http-routes.js';
import { sseRoutes } from './mcp/sse-routes.js';
import type { McpContext } from './mcp/mcp-context.js';
import { managementApi, MANAGEMENT_PREFIX, principalsOf, type ManagementContext } from './management/index.js';
import { consoleUi, CONSOLE_PREFIX } from './console/index.js';
import { TransportSecurity, type AllowedPeers } from './transport-security.js';
import { mcpErrorHandler } from './mcp/mcp-errors.js';
import { authenticateClients } from './mcp/authenticate.js';
import { protectedResourceRoutes } from './mcp/protected-resource.js';
import { installErrorHandling } from './management/errors.js';
import { allowEmptyJsonBodies } from './json-body.js';
import { GatewayError } from '../schemas/errors.js';
import type { SignInCallbacks } from '../runtime/auth/sign-in-callbacks.js';
import { signInCallbackRoute } from './sign-in-callback.js';

export interface AppContext {
  mcp: McpContext;
  management: ManagementContext;
  /** Users' sign-ins that come back to the gateway (`server.public_url`): `GET /oauth/callback` beside /mcp. */
  signInCallbacks: SignInCallbacks;
  logger: Logger;
  /** The address the listener binds: decides the default allowed Host names. */
  bindHost: string;
  /** `server.allowed_hosts` / `allowed_origins` of the running config (read per request: they follow reloads). */
  allowedPeers(): AllowedPeers;
}

/** What one listener serves. */
export interface AppServes {
  mcp: boolean;
  management: boolean;
}

const BOTH: AppServes = { mcp: true, management: true };

export async function buildApp(ctx: AppContext, serves: AppServes = BOTH): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.logger.child({ component: 'http' }) as FastifyBaseLogger,
    // Per-request access logs would dominate the proxy path; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 16 * 1024 * 1024,
    // On close, idle keep-alive sockets go at once; requests in flight may finish
    // (Gateway.stop force-closes whatever is left after the shutdown timeout).
    forceCloseConnections: 'idle',
  });
  // Paths no plugin serves answer in the REST format; each plugin sets its own format below.
  installErrorHandling(app, 'endpoint');
  // Before routing and body parsing: a forbidden Host or Origin learns nothing, not even whether the path
  // exists. The refusal is thrown, so it is answered in the format of the plugin whose path it hit.
  const security = new TransportSecurity(ctx.bindHost);
  app.addHook('onRequest', async (req) => {
    const origin = req.headers.origin;
    const verdict = security.check(req.headers.host, typeof origin === 'string' ? origin : undefined, ctx.allowedPeers());
    if (verdict.ok) return;
    // The route, else the path only: a query may carry secrets (the code and state of a sign-in callback), a path a consent page's id.
    req.log.warn({ host: req.headers.host, origin, path: req.routeOptions.url ?? req.url.split('?')[0] }, 'request refused: DNS-rebinding protection');
    throw new GatewayError('forbidden', `Forbidden: ${verdict.reason}`);
  });
  if (serves.mcp) await mcpEndpoints(app, ctx);
  if (serves.management) {
    await app.register(managementApi, { prefix: MANAGEMENT_PREFIX, ctx: ctx.management });
    // The web console: wherever the management API is served, with the same sign-ins.
    await app.register(consoleUi, { prefix: CONSOLE_PREFIX, ctx: ctx.management, principals: principalsOf(ctx.management), bindHost: ctx.bindHost });
  }
  return app;
}

async function mcpEndpoints(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(async (mcp) => {
    // MCP paths answer in JSON-RPC, whatever went wrong (bad JSON, wrong media type, too large).
    mcp.removeContentTypeParser('text/plain');
    allowEmptyJsonBodies(mcp);
    mcp.setErrorHandler(mcpErrorHandler);
    // Before any session is looked up or any body read: who is calling (401 with a challenge when nobody we know).
    authenticateClients(mcp, ctx.mcp.incomingAuth);
    await streamableHttpRoutes(mcp, ctx.mcp);
    await sseRoutes(mcp, ctx.mcp);
  });
  // Public, answered in the REST format: where MCP clients learn how to get a token (RFC 9728).
  await protectedResourceRoutes(app, ctx.mcp.incomingAuth);
  // Public, answered with HTML pages: where a user's browser comes back after signing in to a backend.
  await app.register(signInCallbackRoute, { callbacks: ctx.signInCallbacks });
}
