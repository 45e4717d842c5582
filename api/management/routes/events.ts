/** GET /events (polling) and GET /events/stream (Server-Sent Events). */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { EventsQuerySchema, EventsSchema } from '../../../schemas/api.js';
import type { ManagementContext } from '../context.js';
import { BAD_REQUEST, doc, errors } from '../route-doc.js';
import { eventsView } from '../views.js';
import { EventStreams } from '../sse.js';

export function eventRoutes(app: FastifyInstance, ctx: ManagementContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const streams = new EventStreams(ctx.events, ctx.redactor);
  app.addHook('preClose', async () => streams.closeAll());

  r.get(
    '/events',
    {
      config: doc('events', 'Recent events, oldest first'),
      schema: { querystring: EventsQuerySchema, response: { 200: EventsSchema, ...errors({ 400: BAD_REQUEST }) } },
    },
    async (req) => eventsView(ctx, req.query),
  );

  r.get(
    '/events/stream',
    {
      config: doc('events', 'Live events as Server-Sent Events (`data: <event json>`, `: heartbeat` comments)', { stream: true }),
      exposeHeadRoute: false,
      schema: { response: errors() },
    },
    async (_req, reply) => {
      streams.serve(reply, ctx.controller.config.events.heartbeat_s * 1000);
      return reply;
    },
  );
}
