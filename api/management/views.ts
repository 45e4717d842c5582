/**
 * Response bodies built from gateway state, shared by the single endpoints
 * and `GET /batch`.
 */
import type { Static } from '@sinclair/typebox';
import type { RouteTable, Route } from '../../runtime/routing/route-table.js';
import { GATEWAY_NAME, GATEWAY_VERSION } from '../../runtime/version.js';
import type { CapabilitiesQuery, CapabilitiesResponse, EventsQuery, EventsSchema, StatusResponse } from '../../schemas/api.js';
import type { ManagementContext } from './context.js';
import { isoQueryParam } from './iso-time.js';

export const uptimeSeconds = (ctx: ManagementContext) => (Date.now() - ctx.controller.startedAt.getTime()) / 1000;

export function statusView(ctx: ManagementContext): StatusResponse {
  const { controller } = ctx;
  const addr = ctx.listenAddress();
  return {
    service: {
      name: GATEWAY_NAME,
      version: GATEWAY_VERSION,
      state: controller.state,
      uptime_seconds: uptimeSeconds(ctx),
      started_at: controller.startedAt.toISOString(),
    },
    config: {
      file_path: controller.loaded.filePath,
      loaded_at: controller.loaded.loadedAt.toISOString(),
      backend_count: Object.keys(controller.config.backends).length,
    },
    transport: { sse_url: `${addr.url}/sse`, streamable_http_url: `${addr.url}/mcp`, host: addr.host, port: addr.port },
    // Spec 4 reports five flags; hot_reload and optimizer are switches. The others state facts of this gateway.
    feature_flags: {
      optimizer: ctx.optimizer.enabled, // feature_flags.optimizer or optimizer.enabled
      hot_reload: controller.config.feature_flags.hot_reload,
      outgoing_auth: Object.values(controller.config.backends).some((b) => b.type !== 'stdio' && b.auth !== undefined),
      session_management: true, // sessions are always tracked, reaped and limited
      yaml_config: true, // the config is always a YAML file
    },
    replica: { id: ctx.replicaId, sessions_store: ctx.sessions.storeState() },
  };
}

/** Filters of `GET /capabilities`: kind, owning backend, and a case-insensitive substring of a name or URI. */
export function capabilitiesView(snap: RouteTable, q: Partial<CapabilitiesQuery> = {}): CapabilitiesResponse {
  const needle = q.search?.toLowerCase();
  const want = (kind: 'tools' | 'resources' | 'prompts', backend: string, ...names: Array<string | undefined>) =>
    (!q.type || q.type === kind) && (q.backend === undefined || q.backend === backend) && (!needle || names.some((n) => n?.toLowerCase().includes(needle)));

  // Each route is filtered by the same names as its listed item, so the map and the lists agree.
  // Null prototype: an exposed name such as `__proto__` or `constructor` is a key like any other.
  const routeMap: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  const route = (kind: 'tools' | 'resources' | 'prompts', exposed: string, r: Route, ...names: Array<string | undefined>) => {
    if (want(kind, r.backend, ...names)) routeMap[exposed] = [r.backend, r.original];
  };
  for (const [name, e] of snap.tools) route('tools', name, e, name, e.original);
  for (const [name, e] of snap.prompts) route('prompts', name, e, name, e.original);
  for (const [uri, e] of snap.resources) route('resources', uri, e, uri, e.resource.name);
  // Resource templates appear only here: spec 2.3 has no list for them.
  for (const t of snap.templates) route('resources', t.template.uriTemplate, t, t.template.uriTemplate, t.template.name);

  return {
    tools: snap.all.tools
      .filter((e) => want('tools', e.backend, e.tool.name, e.original))
      .map((e) => ({
        name: e.tool.name,
        original_name: e.original,
        description: e.tool.description ?? '',
        backend: e.backend,
        input_schema: e.tool.inputSchema,
        filtered: e.filtered,
        renamed: e.renamed,
        ...(e.hiddenBy !== undefined ? { hidden_by: e.hiddenBy } : {}),
        ...(e.nameError !== undefined ? { name_error: e.nameError } : {}),
        ...(e.hold ? { pending: e.hold.reason, ...(e.hold.quarantined ? { quarantined: true } : {}) } : {}),
      })),
    resources: [...snap.resources.values()]
      .filter((e) => want('resources', e.backend, e.resource.uri, e.resource.name))
      .map((e) => ({ uri: e.resource.uri, name: e.resource.name, backend: e.backend, mime_type: e.resource.mimeType ?? '' })),
    prompts: [...snap.prompts.values()]
      .filter((e) => want('prompts', e.backend, e.prompt.name, e.original))
      .map((e) => ({
        name: e.prompt.name,
        description: e.prompt.description ?? '',
        backend: e.backend,
        arguments: e.prompt.arguments ?? [],
      })),
    route_map: routeMap,
  };
}

export function eventsView(ctx: ManagementContext, q: Partial<EventsQuery>): Static<typeof EventsSchema> {
  return { events: ctx.events.list({ limit: q.limit, since: isoQueryParam('since', q.since), severity: q.severity }) };
}
