/**
 * The OpenAPI 3.1 document of the management API, built by @fastify/swagger
 * from the routes as registered: the TypeBox schemas Fastify validates and
 * serialises with, and the OpenAPI fields beside them in each route's
 * `schema` (route-doc.ts). The API's index (`GET /manage/v1`) lists the same
 * operations, so the two cannot disagree.
 */
import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { GATEWAY_VERSION } from '../../runtime/version.js';
import { isPublic } from './auth.js';
import { requiredRole, ROLE_KEY } from './access-hook.js';
import { UNAUTHORIZED } from './route-doc.js';

type Schema = { description?: string; required?: string[]; properties?: Record<string, { default?: unknown }> };
interface Operation {
  summary?: string;
  [ROLE_KEY]?: string;
  requestBody?: { required: boolean; content: Record<string, { schema?: Schema }> };
}
type Paths = Record<string, Record<string, Operation>>;

export interface Endpoint {
  method: string;
  path: string;
  summary: string;
}

/** Registers the generator on the management plugin; it sees every route registered after it. */
export async function registerOpenApiDocument(app: FastifyInstance): Promise<void> {
  const prefix = app.prefix;
  const roles = new Map<string, string>();
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'MCP gateway management API',
        version: GATEWAY_VERSION,
        description: 'Monitoring and control of the gateway. Errors: `{error, message, details}`; see docs/management-api.md.',
      },
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'The management token, or (with `server.management.roles`) a token `incoming_auth` accepts.',
          },
          consoleSession: {
            type: 'apiKey',
            in: 'cookie',
            name: 'gw_console',
            description: 'A console sign-in (`POST /session`); changes also need `X-CSRF-Token`.',
          },
        },
      },
      security: [{ bearerAuth: [] }, { consoleSession: [] }],
    },
    // OpenAPI 3.1 schemas are JSON Schema: `const` needs no rewriting.
    convertConstToEnum: false,
    transform: ({ schema, url, route }) => {
      const method = String(route.method);
      if (schema && !schema.hide && !isPublic(schema)) roles.set(`${method.toLowerCase()} ${url.replace(/:(\w+)/g, '{$1}')}`, requiredRole(method, schema));
      return { url, schema: documented(schema, operationId(method, url, prefix)) };
    },
    // Only the `openapi` form is configured above, never Swagger 2.
    transformObject: (built) => withRoles(withOptionalBodies((built as { openapiObject: { paths?: Paths } }).openapiObject), roles),
  });
}

/** Each operation says the role it needs (`x-required-role`), the one the access hook checks. */
function withRoles<T extends { paths?: Paths }>(document: T, roles: ReadonlyMap<string, string>): T {
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) {
      const role = roles.get(`${method} ${path}`);
      if (role) op[ROLE_KEY] = role;
    }
  }
  return document;
}

/** The documented operations, in registration order. */
export function endpoints(app: FastifyInstance): Endpoint[] {
  const { paths } = app.swagger() as { paths?: Paths };
  return Object.entries(paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, summary: op.summary ?? '' })),
  );
}

/** `POST /manage/v1/skills/:name/enable` is `postSkillsNameEnable`. */
function operationId(method: string, url: string, prefix: string): string {
  const words = url
    .slice(url.startsWith(prefix) ? prefix.length : 0)
    .replace(/:/g, '')
    .split(/[/_.-]/)
    .filter(Boolean);
  return method.toLowerCase() + words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}

/**
 * The route schema as documented: with its operationId, a description on
 * every response, no 401 on a public route (`errors()` lists one for every
 * route; the auth hook never gives it where `security` is empty), and query
 * parameters that have a default not required (validation fills them in).
 *
 * Swagger writes `patternProperties` as `additionalProperties` (the first
 * pattern's schema): the same for TypeBox's `Type.Record(Type.String(), …)`,
 * whose one pattern is `^(.*)$`, but a narrower key pattern would be lost.
 */
function documented(schema: FastifySchema | undefined, id: string): FastifySchema {
  if (!schema || schema.hide) return schema ?? {};
  const response = Object.entries((schema.response ?? {}) as Record<string, Schema>)
    .filter(([status, s]) => !(status === '401' && isPublic(schema) && s.description === UNAUTHORIZED))
    // x-response-description: describes the answer without adding a description to its body's schema.
    .map(([status, s]) => [status, s.description ? s : { ...s, 'x-response-description': status.startsWith('2') ? 'Success' : 'Error' }]);
  const query = schema.querystring as Schema | undefined;
  const querystring = query && { ...query, required: (query.required ?? []).filter((name) => query.properties?.[name]?.default === undefined) };
  return { ...schema, operationId: id, response: Object.fromEntries(response), ...(querystring ? { querystring } : {}) };
}

/**
 * The management plugin reads an empty or absent JSON body as `{}`
 * (validation.ts), so a body is needed only when its schema requires a
 * field; swagger marks every body required.
 */
function withOptionalBodies<T extends { paths?: Paths }>(document: T): T {
  for (const item of Object.values(document.paths ?? {})) {
    for (const op of Object.values(item)) {
      if (!op.requestBody) continue;
      const schemas = Object.values(op.requestBody.content).map((media) => media.schema);
      op.requestBody.required = schemas.some((s) => (s?.required ?? []).length > 0);
    }
  }
  return document;
}
