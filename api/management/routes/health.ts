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
 * Ready: the service is running (not draining); its session store has been
 * reached since start and the definition pins read (a replica that lost the
 * store later stays ready: it serves the sessions it holds); every enabled
 * backend has had its first connect attempt (before, its names are unknown);
 * and at least one is connected, or none is enabled.
 */
export function readiness(ctx: ManagementContext): { ready: boolean; reason: string } {
  const { controller } = ctx;
  if (ctx.stopping()) return { ready: false, reason: 'draining: this replica is shutting down' };
  const store = ctx.sessions.storeState();
  if (store.status === 'unavailable') return { ready: false, reason: `session store (${store.type}) not reached yet: ${store.reason ?? 'not connected'}` };
  if (!ctx.pins.isRead) return { ready: false, reason: `definition pins not read yet (${ctx.pins.location})` };
  if (controller.state !== 'running') return { ready: false, reason: `service is ${controller.state}` };
  const starting = controller.firstConnects.pendingNames();
  if (starting.length > 0) return { ready: false, reason: `backends still in their first connect attempt: ${starting.join(', ')}` };
  const { enabled, connected } = controller.aggregateHealth();
  const degraded = store.status === 'degraded' ? `; session store (${store.type}) unreachable: serving the sessions this replica holds` : '';
  if (enabled === 0) return { ready: true, reason: `no backends configured${degraded}` };
  if (connected === 0) return { ready: false, reason: `no backend connected (0 of ${enabled})` };
  return { ready: true, reason: `${connected} of ${enabled} backends connected${degraded}` };
}
