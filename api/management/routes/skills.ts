/** GET /skills and POST /skills/{name}/enable|disable: the skill manager is not part of the gateway yet. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { NameParamsSchema, SkillActionSchema, SkillsSchema } from '../../../schemas/api.js';
import { GatewayError } from '../../../schemas/errors.js';
import { BAD_REQUEST, doc, errors } from '../route-doc.js';

const UNAVAILABLE = 'Skill manager not initialized (`skills_unavailable`).';

const notInitialized = () => new GatewayError('skills_unavailable', 'The skill manager is not initialized');

export function skillRoutes(app: FastifyInstance): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get('/skills', { config: doc('skills', 'Installed skills'), schema: { response: { 200: SkillsSchema, ...errors({ 503: UNAVAILABLE }) } } }, async () => {
    throw notInitialized();
  });
  for (const action of ['enable', 'disable'] as const) {
    r.post(
      `/skills/:name/${action}`,
      {
        config: doc('skills', `${action === 'enable' ? 'Enable' : 'Disable'} a skill`),
        schema: {
          params: NameParamsSchema,
          response: { 200: SkillActionSchema, ...errors({ 400: BAD_REQUEST, 404: 'Unknown skill (`skill_not_found`).', 503: UNAVAILABLE }) },
        },
      },
      async () => {
        throw notInitialized();
      },
    );
  }
}
