/** GET /tools/search: the optimizer's find_tool search, for operators (whether or not the optimizer is on). */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ToolSearchQuerySchema, ToolSearchSchema } from '../../../schemas/api.js';
import { OPTIMIZER_MAX_LIMIT } from '../../../schemas/config.js';
import type { ManagementContext } from '../context.js';
import { doc, errors } from '../route-doc.js';

export function toolSearchRoutes(app: FastifyInstance, ctx: ManagementContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/tools/search',
    {
      schema: {
        ...doc('monitoring', 'Search the exposed tools by what they do (what find_tool answers)'),
        querystring: ToolSearchQuerySchema,
        response: { 200: ToolSearchSchema, ...errors({ 400: `Missing \`q\`, or \`limit\` outside 1..${OPTIMIZER_MAX_LIMIT} (\`bad_request\`).` }) },
      },
    },
    async (req) => ({
      tools: (await ctx.optimizer.search(req.query.q, req.query.limit)).map(({ name, backend, description, score }) => ({ name, backend, description, score })),
    }),
  );
}
