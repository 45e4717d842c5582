/** GET /audit: the audit trail read back, filtered (runtime/observability/audit/audit-query.ts). */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AuditQuerySchema, AuditSchema } from '../../../schemas/api.js';
import { queryAudit } from '../../../runtime/observability/audit/audit-query.js';
import type { ManagementContext } from '../context.js';
import { BAD_REQUEST, doc, errors } from '../route-doc.js';
import { isoQueryParam } from '../iso-time.js';

export function auditRoutes(app: FastifyInstance, ctx: ManagementContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/audit',
    {
      schema: {
        ...doc('audit', 'Audit records, newest kept, oldest first, filtered by user, tool, backend, outcome, call and time'),
        querystring: AuditQuerySchema,
        response: { 200: AuditSchema, ...errors({ 400: BAD_REQUEST }) },
      },
    },
    async (req) => {
      const q = req.query;
      return queryAudit(ctx.audit, {
        user: q.user,
        tool: q.tool,
        backend: q.backend,
        outcome: q.outcome,
        callId: q.call_id,
        since: isoQueryParam('since', q.since),
        until: isoQueryParam('until', q.until),
        limit: q.limit,
      });
    },
  );
}
