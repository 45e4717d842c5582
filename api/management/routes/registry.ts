/** GET /registry/search: no registry client exists yet, so a valid query finds no registry. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { RegistrySearchQuerySchema, RegistrySearchSchema } from '../../../schemas/api.js';
import { GatewayError } from '../../../schemas/errors.js';
import { doc, errors } from '../route-doc.js';

export function registryRoutes(app: FastifyInstance): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/registry/search',
    {
      config: doc('registry', 'Search external MCP server registries'),
      schema: {
        querystring: RegistrySearchQuerySchema,
        response: {
          200: RegistrySearchSchema,
          ...errors({
            400: 'Missing or invalid `q`, or `limit` outside 1..100 (`bad_request`).',
            404: 'No registries configured, or the named registry is unknown (`registry_not_found`).',
          }),
        },
      },
    },
    async (req) => {
      const { registry } = req.query;
      const message = registry === undefined ? 'No registries are configured' : `Registry '${registry}' not found: no registries are configured`;
      throw new GatewayError('registry_not_found', message, registry === undefined ? {} : { registry });
    },
  );
}
