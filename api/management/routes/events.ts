/** GET /events (polling) and GET /events/stream (Server-Sent Events). */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { EventsQuerySchema, EventsSchema } from '../../../schemas/api.js';
import type { ManagementContext } from '../context.js';
import { BAD_REQUEST, doc, errors } from '../route-doc.js';
import { eventsView } from '../views.js';
import { EventStreams } from '../sse.js';

/** The stream is written by hand (sse.ts), never serialised: this schema only documents it. */
const EVENT_STREAM = { description: 'Event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } };

export function eventRoutes(app: FastifyInstance, ctx: ManagementContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const streams = new EventStreams(ctx.events, ctx.redactor);
  app.addHook('preClose', async () => streams.closeAll());

  r.get(
    '/events',
    {
      schema: {
        ...doc('events', 'Recent events, oldest first'),
        querystring: EventsQuerySchema,
        response: { 200: EventsSchema, ...errors({ 400: BAD_REQUEST }) },
      },
    },
    async (req) => eventsView(ctx, req.query),
  );

  r.get(
    '/events/stream',
    {
      exposeHeadRoute: false,
      schema: {
        ...doc('events', 'Live events as Server-Sent Events (`data: <event json>`, `: heartbeat` comments)'),
        response: { 200: EVENT_STREAM, ...errors() },
      },
    },
    async (_req, reply) => {
      streams.serve(reply, ctx.controller.config.events.heartbeat_s * 1000);
      return reply;
    },
  );
}
