/** GET /backends/{name}/stderr: the last lines a backend's processes wrote to stderr (runtime/backends/stderr-log.ts). */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { NameParamsSchema, StderrQuerySchema, StderrSchema } from '../../../schemas/api.js';
import type { ManagementContext } from '../context.js';
import { BAD_REQUEST, doc, errors } from '../route-doc.js';

export function backendLogRoutes(app: FastifyInstance, ctx: ManagementContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/backends/:name/stderr',
    {
      schema: {
        ...doc('monitoring', "The last lines a backend's processes wrote to stderr, across connection attempts"),
        params: NameParamsSchema,
        querystring: StderrQuerySchema,
        response: { 200: StderrSchema, ...errors({ 400: BAD_REQUEST, 404: 'Unknown backend (`backend_not_found`).' }) },
      },
    },
    async (req) => {
      const { name } = req.params;
      ctx.controller.requireBackend(name);
      return { name, lines: ctx.serving.stderr.tail(name, req.query.limit) };
    },
  );
}
