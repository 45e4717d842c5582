/** GET /skills and POST /skills/{name}/enable|disable (spec 2.6, 3.3). */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { NameParamsSchema, SkillActionSchema, SkillsSchema } from '../../../schemas/api.js';
import type { ManagementContext } from '../context.js';
import { BAD_REQUEST, doc, errors } from '../route-doc.js';

const UNAVAILABLE = 'The skill manager is starting (`skills_unavailable`).';

export function skillRoutes(app: FastifyInstance, ctx: ManagementContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get('/skills', { schema: { ...doc('skills', 'Installed skills'), response: { 200: SkillsSchema, ...errors({ 503: UNAVAILABLE }) } } }, async () => ({
    skills: ctx.skills.records(),
  }));
  for (const action of ['enable', 'disable'] as const) {
    r.post(
      `/skills/:name/${action}`,
      {
        schema: {
          ...doc('skills', `${action === 'enable' ? 'Enable' : 'Disable'} a skill`, { role: 'operator' }),
          params: NameParamsSchema,
          response: { 200: SkillActionSchema, ...errors({ 400: BAD_REQUEST, 404: 'Unknown skill (`skill_not_found`).', 503: UNAVAILABLE }) },
        },
      },
      async (req) => ctx.skills.setStatus(req.params.name, action === 'enable' ? 'enabled' : 'disabled'),
    );
  }
}
