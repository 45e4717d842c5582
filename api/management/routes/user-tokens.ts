/** DELETE /backends/{name}/users/{id}/token: forgets the tokens one user granted a backend that acts for each user (user_oauth). */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { UserTokenParamsSchema } from '../../../schemas/api.js';
import { GatewayError } from '../../../schemas/errors.js';
import type { ManagementContext } from '../context.js';
import { BAD_REQUEST, doc, errors } from '../route-doc.js';

export function userTokenRoutes(app: FastifyInstance, ctx: ManagementContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.delete(
    '/backends/:name/users/:id/token',
    {
      schema: {
        ...doc('control', "Revoke a user's sign-in to a backend that acts for each user: the user's next call asks for a new sign-in", { role: 'operator' }),
        params: UserTokenParamsSchema,
        response: {
          204: Type.Null({ description: 'The tokens are forgotten' }),
          ...errors({
            400: `${BAD_REQUEST} Or: the backend does not act for each user (auth.on_behalf_of.type: user_oauth).`,
            404: 'Unknown backend (`backend_not_found`), or the user holds no token for it (`not_found`).',
          }),
        },
      },
    },
    async (req, reply) => {
      const { name, id } = req.params;
      ctx.controller.requireBackend(name);
      if (!(await ctx.signIns.revoke(name, ctx.controller.config.backends[name]!, id))) {
        throw new GatewayError('not_found', `User '${id}' holds no token for backend '${name}'`, { backend: name, user: id });
      }
      return reply.code(204).send(null);
    },
  );
}
