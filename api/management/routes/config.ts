/**
 * GET /config: the running config file, credentials redacted
 * (controller/config/config-redaction.ts, then the gateway's redactor).
 * POST /config/validate: whether a config text would load, and what it
 * would change against the running config (controller/config/reload-preview.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ConfigValidateBodySchema, ConfigValidateSchema, RunningConfigSchema } from '../../../schemas/api.js';
import { redactConfigText } from '../../../controller/config/config-redaction.js';
import type { ManagementContext } from '../context.js';
import { BAD_REQUEST, doc, errors } from '../route-doc.js';

export function configRoutes(app: FastifyInstance, ctx: ManagementContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/config',
    { schema: { ...doc('config', 'The running config file, with credentials redacted'), response: { 200: RunningConfigSchema, ...errors() } } },
    async () => {
      const { loaded } = ctx.controller;
      return { file_path: loaded.filePath, loaded_at: loaded.loadedAt.toISOString(), yaml: ctx.redactor.redact(redactConfigText(loaded.text)) };
    },
  );
  r.post(
    '/config/validate',
    {
      schema: {
        ...doc('config', 'Whether a config text would load, and what it would change; nothing is applied', { role: 'viewer' }),
        body: ConfigValidateBodySchema,
        response: { 200: ConfigValidateSchema, ...errors({ 400: BAD_REQUEST }) },
      },
    },
    async (req) => {
      const { valid, errors: problems, ...changes } = ctx.controller.previewReload(req.body.yaml);
      return { valid, ...changes, errors: problems };
    },
  );
}
