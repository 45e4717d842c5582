/**
 * GET /registry/search (spec) and POST /registry/install (beyond the spec:
 * adds a registry server to the config file as a backend and, with hot
 * reload on, applies it at once).
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { RegistryInstallBodySchema, RegistryInstallSchema, RegistrySearchQuerySchema, RegistrySearchSchema } from '../../../schemas/api.js';
import { parseConfigText } from '../../../controller/config/config-loader.js';
import { addBackendToConfigFile } from '../../../runtime/registry/config-install.js';
import { defaultBackendName, installSpecOf, toRegistryEntry } from '../../../runtime/registry/registry-entry.js';
import type { ManagementContext } from '../context.js';
import { BAD_REQUEST, doc, errors } from '../route-doc.js';

const NOT_FOUND = 'No registries configured, or the named registry is unknown (`registry_not_found`).';
const UNAVAILABLE = 'Every registry tried failed or timed out (`registry_unavailable`); `details.failures` lists why.';

export function registryRoutes(app: FastifyInstance, ctx: ManagementContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/registry/search',
    {
      schema: {
        ...doc('registry', 'Search external MCP server registries'),
        querystring: RegistrySearchQuerySchema,
        response: {
          200: RegistrySearchSchema,
          ...errors({ 400: 'Missing or invalid `q`, or `limit` outside 1..100 (`bad_request`).', 404: NOT_FOUND, 502: UNAVAILABLE }),
        },
      },
    },
    async (req) => ctx.registry.search(req.query.q, req.query.limit, req.query.registry),
  );

  r.post(
    '/registry/install',
    {
      schema: {
        ...doc('registry', 'Add a registry server to the config file as a backend'),
        body: RegistryInstallBodySchema,
        response: {
          201: RegistryInstallSchema,
          ...errors({
            400: `${BAD_REQUEST} Or the edited config would not load (\`config_invalid\`, e.g. a required environment variable is not set); the file is untouched.`,
            404: `${NOT_FOUND} Or no registry has the server (\`registry_entry_not_found\`).`,
            409: 'The config file already has a backend of that name (`backend_exists`); the file is untouched.',
            422: 'The server has nothing the gateway can run (`registry_entry_not_installable`).',
            502: UNAVAILABLE,
          }),
        },
      },
    },
    async (req, reply) => {
      const { name, registry, backend_name } = req.body;
      const found = await ctx.registry.lookup(name, registry);
      const entry = toRegistryEntry(found.server);
      const spec = installSpecOf(found.server.server);
      const backend = backend_name ?? defaultBackendName(name);
      const { controller } = ctx;
      await addBackendToConfigFile({
        filePath: controller.loaded.filePath,
        name: backend,
        spec,
        comment: `installed from registry ${found.registry}: ${name}${entry.version ? ` ${entry.version}` : ''}`,
        validate: (text) => void parseConfigText(text),
      });
      const reload = controller.config.feature_flags.hot_reload ? await controller.reload('api') : null;
      reply.code(201);
      return { backend, entry, reload };
    },
  );
}
