/**
 * The OpenAPI 3.1 document of the management API, generated from the routes
 * as registered: the same TypeBox schemas Fastify validates and serialises
 * with, plus the route's doc metadata (route-doc.ts).
 */
import type { RouteOptions } from 'fastify';
import { GATEWAY_VERSION } from '../../runtime/version.js';
import type { RouteDoc } from './route-doc.js';

interface Collected {
  method: string;
  url: string;
  schema: { body?: unknown; querystring?: unknown; params?: unknown; response?: Record<string, unknown> };
  doc?: RouteDoc;
}

type JsonSchema = { type?: string; properties?: Record<string, JsonSchema>; required?: string[]; description?: string; [k: string]: unknown };

/** JSON round trip: drops TypeBox's symbol keys and shares no objects with the live schemas. */
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

export class OpenApiCollector {
  private readonly routes: Collected[] = [];

  /** For an `onRoute` hook; HEAD twins of GET routes are left out. */
  add(route: RouteOptions): void {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((m) => m !== 'HEAD');
    for (const method of methods) {
      this.routes.push({
        method: method.toLowerCase(),
        url: route.url,
        schema: (route.schema ?? {}) as Collected['schema'],
        doc: route.config as RouteDoc | undefined,
      });
    }
  }

  /** The documented routes, in registration order. */
  endpoints(): Array<{ method: string; path: string; summary: string }> {
    return this.routes
      .filter((r) => r.doc?.summary)
      .map((r) => ({ method: r.method.toUpperCase(), path: r.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}'), summary: r.doc!.summary }));
  }

  document(): Record<string, unknown> {
    const paths: Record<string, Record<string, unknown>> = {};
    for (const route of this.routes) {
      if (!route.doc?.summary) continue; // undocumented helpers (the document itself)
      const path = route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      (paths[path] ??= {})[route.method] = operation(route, path);
    }
    return {
      openapi: '3.1.0',
      info: {
        title: 'MCP gateway management API',
        version: GATEWAY_VERSION,
        description: 'Monitoring and control of the gateway. Errors: `{error, message, details}`; see docs/management-api.md.',
      },
      paths,
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearerAuth: [] }],
    };
  }
}

function operation(route: Collected, path: string): Record<string, unknown> {
  const { schema, doc } = route;
  const op: Record<string, unknown> = {
    operationId:
      route.method +
      path
        .replace(/^\/manage\/v1/, '')
        .replace(/[{}]/g, '')
        .split(/[/_.-]/)
        .filter(Boolean)
        .map(capitalize)
        .join(''),
    summary: doc!.summary,
    tags: [doc!.tag],
  };
  if (doc!.public) op.security = [];
  const parameters = [...params(schema.params as JsonSchema | undefined, 'path'), ...params(schema.querystring as JsonSchema | undefined, 'query')];
  if (parameters.length) op.parameters = parameters;
  if (schema.body) op.requestBody = { required: !doc!.optionalBody, content: { 'application/json': { schema: plain(schema.body) } } };
  const responses: Record<string, unknown> = {};
  if (doc!.stream) {
    responses['200'] = { description: 'Event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } };
  }
  for (const [status, body] of Object.entries(schema.response ?? {})) {
    const s = plain(body) as JsonSchema;
    responses[status] = { description: s.description ?? (status.startsWith('2') ? 'Success' : 'Error'), content: { 'application/json': { schema: s } } };
  }
  op.responses = responses;
  return op;
}

function params(schema: JsonSchema | undefined, location: 'path' | 'query'): Array<Record<string, unknown>> {
  if (!schema?.properties) return [];
  return Object.entries(schema.properties).map(([name, prop]) => {
    const { description, ...rest } = plain(prop);
    return {
      name,
      in: location,
      required: location === 'path' || (schema.required ?? []).includes(name),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
