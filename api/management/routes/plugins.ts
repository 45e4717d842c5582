/** GET /plugins: the plugin chain, in chain order, with what each plugin has done (docs/plugins.md). */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { PluginsSchema } from '../../../schemas/api.js';
import type { ManagementContext } from '../context.js';
import { doc, errors } from '../route-doc.js';

export function pluginRoutes(app: FastifyInstance, ctx: ManagementContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get('/plugins', { schema: { ...doc('plugins', 'The plugin chain and its counters'), response: { 200: PluginsSchema, ...errors() } } }, async () => ({
    plugins: ctx.plugins.list(),
  }));
}
