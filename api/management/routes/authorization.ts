/**
 * POST /authorization/check: what the policies of the running config say
 * about one caller and one resource, like `kubectl auth can-i`. A tool,
 * prompt or resource the gateway serves is judged as a call to it would be,
 * with its backend and group (runtime/access/access-control.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AuthorizationCheckBodySchema, AuthorizationCheckSchema } from '../../../schemas/api.js';
import type { ManagementContext } from '../context.js';
import { BAD_REQUEST, doc, errors } from '../route-doc.js';

export function authorizationRoutes(app: FastifyInstance, ctx: ManagementContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/authorization/check',
    {
      schema: {
        ...doc('authorization', 'Whether callers with these roles may use a resource', { role: 'viewer' }),
        body: AuthorizationCheckBodySchema,
        response: { 200: AuthorizationCheckSchema, ...errors({ 400: BAD_REQUEST }) },
      },
    },
    async (req) => {
      const decision = ctx.access.explain(req.body.roles, req.body.resource, ctx.serving.routes);
      const policy = decision.policyIndex === null ? null : (ctx.controller.config.authorization.policies[decision.policyIndex] ?? null);
      return { allowed: decision.allowed, policy_index: decision.policyIndex, effect: decision.effect, policy };
    },
  );
}
