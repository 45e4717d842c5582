/** GET /status, /backends, /groups, /capabilities, /sessions, /clients and /batch. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  BackendsSchema,
  BatchQuerySchema,
  BatchSchema,
  CapabilitiesQuerySchema,
  CapabilitiesSchema,
  ClientsSchema,
  GroupsQuerySchema,
  GroupsSchema,
  SessionsSchema,
  StatusSchema,
} from '../../../schemas/api.js';
import type { ManagementContext } from '../context.js';
import { BAD_REQUEST, doc, errors } from '../route-doc.js';
import { capabilitiesView, eventsView, statusView } from '../views.js';

export function monitoringRoutes(app: FastifyInstance, ctx: ManagementContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tag = 'monitoring';

  r.get('/status', { schema: { ...doc(tag, 'Service, config, transport and feature flags'), response: { 200: StatusSchema, ...errors() } } }, async () =>
    statusView(ctx),
  );

  r.get('/backends', { schema: { ...doc(tag, 'Backend records'), response: { 200: BackendsSchema, ...errors() } } }, async () => ({
    backends: ctx.controller.backendRecords(),
  }));

  r.get(
    '/groups',
    {
      schema: { ...doc(tag, 'Backends by group'), querystring: GroupsQuerySchema, response: { 200: GroupsSchema, ...errors({ 400: BAD_REQUEST }) } },
    },
    async (req) => {
      // Null prototype: a group named `__proto__` or `constructor` is a group like any other.
      const groups: Record<string, { servers: string[]; count: number }> = Object.create(null) as Record<string, { servers: string[]; count: number }>;
      for (const [name, spec] of Object.entries(ctx.controller.config.backends)) {
        const group = spec.group ?? 'default';
        if (req.query.group !== undefined && req.query.group !== group) continue;
        const entry = (groups[group] ??= { servers: [], count: 0 });
        entry.servers.push(name);
        entry.count = entry.servers.length;
      }
      const entries = Object.values(groups);
      return { groups, total_groups: entries.length, total_servers: entries.reduce((n, g) => n + g.count, 0) };
    },
  );

  r.get(
    '/capabilities',
    {
      schema: {
        ...doc(tag, 'Aggregated tools, resources, prompts and the route map'),
        querystring: CapabilitiesQuerySchema,
        response: { 200: CapabilitiesSchema, ...errors({ 400: BAD_REQUEST }) },
      },
    },
    async (req) => capabilitiesView(ctx.serving.routes, req.query),
  );

  r.get('/sessions', { schema: { ...doc(tag, 'MCP client sessions of /mcp and /sse'), response: { 200: SessionsSchema, ...errors() } } }, async () => {
    const sessions = await ctx.sessions.records();
    return { active_sessions: sessions.filter((s) => !s.expired).length, sessions };
  });

  r.get(
    '/clients',
    { schema: { ...doc(tag, 'MCP clients seen without a session (protocol 2026-07-28)'), response: { 200: ClientsSchema, ...errors() } } },
    async () => ({ clients: ctx.clients.records() }),
  );

  r.get(
    '/batch',
    {
      schema: {
        ...doc(tag, 'Status, backends, capabilities and recent events in one answer'),
        querystring: BatchQuerySchema,
        response: { 200: BatchSchema, ...errors({ 400: BAD_REQUEST }) },
      },
    },
    async (req) => ({
      status: statusView(ctx),
      backends: { backends: ctx.controller.backendRecords() },
      capabilities: capabilitiesView(ctx.serving.routes),
      events: eventsView(ctx, { limit: req.query.events_limit }),
    }),
  );
}
