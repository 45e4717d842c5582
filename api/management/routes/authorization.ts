/**
 * POST /authorization/check: what the policies of the running config say
 * about one caller and one resource, like `kubectl auth can-i`. A tool,
 * prompt or resource the gateway serves is judged as a call to it would be,
 * with its backend and group and, for a policy's `when`, the arguments,
 * claims and request facts given (runtime/access/access-control.ts).
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
        ...doc('authorization', 'Whether a caller with these roles (and claims) may use a resource (with these arguments)', { role: 'viewer' }),
        body: AuthorizationCheckBodySchema,
        response: { 200: AuthorizationCheckSchema, ...errors({ 400: BAD_REQUEST }) },
      },
    },
    async (req) => {
      const { roles, resource, user_id, claims, arguments: args, request } = req.body;
      const facts = {
        userId: user_id,
        claims,
        arguments: args,
        request: request && { method: request.method, revision: request.revision, clientName: request.client_name, clientVersion: request.client_version },
      };
      const e = ctx.access.explain(roles, resource, ctx.serving.routes, facts);
      const policy = e.policyIndex === null ? null : (ctx.controller.config.authorization.policies[e.policyIndex] ?? null);
      return {
        allowed: e.allowed,
        policy_index: e.policyIndex,
        effect: e.effect,
        reason: e.reason,
        ...(e.when === undefined ? {} : { when: e.when }),
        conditions: e.conditions.map((c) => ({
          policy_index: c.policyIndex,
          outcome: c.outcome as 'true' | 'false' | 'error',
          ...(c.error ? { error: c.error } : {}),
        })),
        policy,
      };
    },
  );
}
