/**
 * The management REST API under /manage/v1 (spec section 4).
 * Placeholder until the management routes land: only /health.
 */
import type { FastifyInstance } from 'fastify';
import type { GatewayController } from '../../controller/gateway-controller.js';
import { GATEWAY_VERSION } from '../../runtime/version.js';

export interface ManagementContext {
  controller: GatewayController;
}

export async function managementApi(app: FastifyInstance, opts: { ctx: ManagementContext }): Promise<void> {
  const { controller } = opts.ctx;
  app.get('/health', async () => {
    const h = controller.aggregateHealth();
    return {
      status: h.status,
      uptime_seconds: (Date.now() - controller.startedAt.getTime()) / 1000,
      version: GATEWAY_VERSION,
      backends: { total: h.total, connected: h.connected, healthy: h.healthy },
    };
  });
}
