/** GET /health and GET /ready: public probes. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { HealthSchema, ReadySchema } from '../../../schemas/api.js';
import { GATEWAY_VERSION } from '../../../runtime/version.js';
import type { ManagementContext } from '../context.js';
import { doc, errors } from '../route-doc.js';
import { uptimeSeconds } from '../views.js';

export function healthRoutes(app: FastifyInstance, ctx: ManagementContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    '/health',
    {
      schema: { ...doc('monitoring', 'Aggregate health', { public: true }), response: { 200: HealthSchema, ...errors() } },
    },
    async () => {
      const h = ctx.controller.aggregateHealth();
      return {
        status: h.status,
        uptime_seconds: uptimeSeconds(ctx),
        version: GATEWAY_VERSION,
        backends: { total: h.total, connected: h.connected, healthy: h.healthy },
      };
    },
  );

  r.get(
    '/ready',
    {
      schema: {
        ...doc('monitoring', 'Readiness: 200 when accepting traffic, 503 otherwise', { public: true }),
        response: { 200: ReadySchema, 503: { ...ReadySchema, description: 'Not ready' }, ...errors() },
      },
    },
    async (_req, reply) => {
      const { ready, reason } = readiness(ctx);
      return reply.code(ready ? 200 : 503).send({ ready, reason });
    },
  );
}

/**
 * Ready: the service is running (not draining), its session store is
 * reachable, and at least one enabled backend is connected, or none is enabled.
 */
export function readiness(ctx: ManagementContext): { ready: boolean; reason: string } {
  const { controller } = ctx;
  if (ctx.drainingRetryS() !== undefined) return { ready: false, reason: 'draining: this replica is shutting down' };
  if (controller.state !== 'running') return { ready: false, reason: `service is ${controller.state}` };
  const store = ctx.sessions.storeState();
  if (store.status !== 'ok') return { ready: false, reason: `session store (${store.type}) unreachable` };
  const { enabled, connected } = controller.aggregateHealth();
  if (enabled === 0) return { ready: true, reason: 'no backends configured' };
  if (connected === 0) return { ready: false, reason: `no backend connected yet (0 of ${enabled})` };
  return { ready: true, reason: `${connected} of ${enabled} backends connected` };
}
