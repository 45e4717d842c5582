/**
 * The management REST API under /manage/v1 (spec section 4), one encapsulated
 * Fastify plugin: its validation, error handling and bearer-token check do not
 * reach the MCP endpoints. Routes live in routes/, one file per area; the
 * request and response shapes in schemas/api.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { ManagementContext } from './context.js';
import { GATEWAY_NAME, GATEWAY_VERSION } from '../../runtime/version.js';
import { accessHook } from './access-hook.js';
import { Principals } from './principal.js';
import { installErrorHandling } from './errors.js';
import { installValidation } from './validation.js';
import { crossOriginGuard } from './cross-origin.js';
import { endpoints, registerOpenApiDocument } from './openapi-document.js';
import { healthRoutes } from './routes/health.js';
import { monitoringRoutes } from './routes/monitoring.js';
import { eventRoutes } from './routes/events.js';
import { controlRoutes } from './routes/control.js';
import { userTokenRoutes } from './routes/user-tokens.js';
import { registryRoutes } from './routes/registry.js';
import { skillRoutes } from './routes/skills.js';
import { proxyRoutes } from './routes/proxy.js';
import { pluginRoutes } from './routes/plugins.js';
import { toolSearchRoutes } from './routes/tool-search.js';
import { pinRoutes } from './routes/pins.js';
import { authorizationRoutes } from './routes/authorization.js';
import { sessionRoutes } from './routes/session.js';
import { auditRoutes } from './routes/audit.js';
import { configRoutes } from './routes/config.js';
import { backendLogRoutes } from './routes/backend-logs.js';

export type { ManagementContext, ListenAddress } from './context.js';

/** Where the management API lives (spec section 4: the version is in the path). */
export const MANAGEMENT_PREFIX = '/manage/v1';

/** Who a request is, from the management context (the console's sign-in uses the same). */
export const principalsOf = (ctx: ManagementContext) =>
  new Principals({ config: () => ctx.controller.config, incomingAuth: ctx.incomingAuth, sessions: ctx.consoleSessions });

export async function managementApi(app: FastifyInstance, opts: { ctx: ManagementContext }): Promise<void> {
  const { ctx } = opts;
  await registerOpenApiDocument(app);
  installValidation(app);
  installErrorHandling(app);
  // JSON bodies only: a browser's "simple" text/plain POST finds no parser (415).
  app.removeContentTypeParser('text/plain');
  app.addHook(
    'onRequest',
    crossOriginGuard(() => ctx.controller.config.server.allowed_origins ?? []),
  );
  // Backend errors can echo credentials (an HTTP error page quoting a header):
  // every management response passes through the same redactor as the logs.
  app.addHook('onSend', async (_req, _reply, payload) => (typeof payload === 'string' ? ctx.redactor.redact(payload) : payload));
  // Who is asking and whether their role allows the route; read per request: a reload can change the token and the roles.
  const principals = principalsOf(ctx);
  app.decorateRequest('principal', null);
  app.addHook('onRequest', accessHook(principals));

  healthRoutes(app, ctx);
  monitoringRoutes(app, ctx);
  eventRoutes(app, ctx);
  controlRoutes(app, ctx);
  userTokenRoutes(app, ctx);
  registryRoutes(app, ctx);
  skillRoutes(app, ctx);
  pluginRoutes(app, ctx);
  proxyRoutes(app, ctx);
  toolSearchRoutes(app, ctx);
  pinRoutes(app, ctx);
  authorizationRoutes(app, ctx);
  sessionRoutes(app, ctx, principals);
  auditRoutes(app, ctx);
  configRoutes(app, ctx);
  backendLogRoutes(app, ctx);

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  // The start-up banner prints the API's root URL: it answers with what is there.
  app.get('/', { schema: { hide: true, security: [] } }, async () => ({
    name: GATEWAY_NAME,
    version: GATEWAY_VERSION,
    openapi: `${MANAGEMENT_PREFIX}/openapi.json`,
    endpoints: endpoints(app),
  }));
}
