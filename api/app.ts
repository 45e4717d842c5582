/**
 * The Fastify application: MCP endpoints at the root (`/mcp`, `/sse`) and
 * the management API under `/manage/v1`, each an encapsulated plugin.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from '../runtime/observability/logging/logger.js';
import { streamableHttpRoutes } from './mcp/streamable-http-routes.js';
import { sseRoutes } from './mcp/sse-routes.js';
import type { McpContext } from './mcp/mcp-context.js';
import { managementApi, type ManagementContext } from './management/index.js';

export interface AppContext {
  mcp: McpContext;
  management: ManagementContext;
  logger: Logger;
}

export async function buildApp(ctx: AppContext): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.logger.child({ component: 'http' }) as FastifyBaseLogger,
    // Per-request access logs would dominate the proxy path; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 16 * 1024 * 1024,
    // On close, idle keep-alive sockets go at once; requests in flight may finish
    // (Gateway.stop force-closes whatever is left after the shutdown timeout).
    forceCloseConnections: 'idle',
  });
  await app.register(async (mcp) => {
    await streamableHttpRoutes(mcp, ctx.mcp);
    await sseRoutes(mcp, ctx.mcp);
  });
  await app.register(managementApi, { prefix: '/manage/v1', ctx: ctx.management });
  return app;
}
