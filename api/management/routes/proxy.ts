/**
 * POST /tools/call, /resources/read and /prompts/get: the same Router path as
 * MCP clients (routing, timeout, audit, telemetry), as caller session
 * `management`.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { PromptGetBodySchema, PromptGetSchema, ResourceReadBodySchema, ResourceReadSchema, ToolCallBodySchema, ToolCallSchema } from '../../../schemas/api.js';
import type { CallerContext, ForwardOptions, JsonObject } from '../../../runtime/routing/caller.js';
import type { ManagementContext } from '../context.js';
import { BAD_REQUEST, doc, errors } from '../route-doc.js';

const callErrors = (what: string) =>
  errors({
    400: BAD_REQUEST,
    404: `Unknown ${what} (\`${what}_not_found\`).`,
    502: `The backend failed the request (\`backend_error\`) or did not answer in time (\`backend_timeout\`).`,
    503: 'The owning backend has no usable session (`backend_unavailable`).',
  });

/**
 * The management caller: the person behind the request when they signed in as
 * an identity (its user id and roles go into the audit record, and the
 * policies judge it), else the holder of the management token, whom they do
 * not restrict. `metadata.call_id` lets the caller find the call's audit record.
 */
const caller = (req: FastifyRequest, callId?: string): CallerContext => ({
  sessionId: 'management',
  transport: 'management',
  clientIp: req.ip,
  ...(req.principal?.user ? { userId: req.principal.user, roles: req.principal.roles } : {}),
  ...(callId ? { metadata: { call_id: callId } } : {}),
});

/** Cancels the backend request when the HTTP client goes away before the answer. */
function abortOnDisconnect(reply: FastifyReply): ForwardOptions {
  const ac = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) ac.abort();
  });
  return { signal: ac.signal };
}

export function proxyRoutes(app: FastifyInstance, ctx: ManagementContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/tools/call',
    {
      schema: {
        ...doc('proxy', 'Call a tool through the gateway', { role: 'operator' }),
        body: ToolCallBodySchema,
        response: { 200: ToolCallSchema, ...callErrors('tool') },
      },
    },
    async (req, reply) => {
      const { tool, arguments: args } = req.body;
      let backend = '';
      const callId = randomUUID();
      const result = await ctx.router.callTool(
        caller(req, callId),
        { name: tool, arguments: args },
        { ...abortOnDisconnect(reply), onBackend: (b) => (backend = b) },
      );
      const content = Array.isArray(result.content) ? (result.content as Array<{ type: string; text?: string }>) : [];
      const structured = result.structuredContent;
      const structuredContent =
        structured && typeof structured === 'object' && !Array.isArray(structured) ? { structuredContent: structured as JsonObject } : {};
      return { tool, backend, content, isError: result.isError === true, ...structuredContent, call_id: callId };
    },
  );

  r.post(
    '/resources/read',
    {
      schema: {
        ...doc('proxy', 'Read a resource through the gateway', { role: 'operator' }),
        body: ResourceReadBodySchema,
        response: { 200: ResourceReadSchema, ...callErrors('resource') },
      },
    },
    async (req, reply) => {
      const { uri } = req.body;
      let backend = '';
      const result = await ctx.router.readResource(caller(req), { uri }, { ...abortOnDisconnect(reply), onBackend: (b) => (backend = b) });
      const contents = (Array.isArray(result.contents) ? (result.contents as JsonObject[]) : []).map((c) => ({
        uri: typeof c.uri === 'string' ? c.uri : uri,
        mimeType: typeof c.mimeType === 'string' ? c.mimeType : '',
        ...(typeof c.text === 'string' ? { text: c.text } : {}),
        ...(typeof c.blob === 'string' ? { blob: c.blob } : {}),
      }));
      return { uri, backend, contents };
    },
  );

  r.post(
    '/prompts/get',
    {
      schema: {
        ...doc('proxy', 'Render a prompt through the gateway', { role: 'operator' }),
        body: PromptGetBodySchema,
        response: { 200: PromptGetSchema, ...callErrors('prompt') },
      },
    },
    async (req, reply) => {
      const { name, arguments: args } = req.body;
      let backend = '';
      const result = await ctx.router.getPrompt(
        caller(req),
        { name, ...(args && { arguments: args }) },
        { ...abortOnDisconnect(reply), onBackend: (b) => (backend = b) },
      );
      return {
        prompt: name,
        backend,
        ...(typeof result.description === 'string' ? { description: result.description } : {}),
        messages: Array.isArray(result.messages) ? (result.messages as Static<typeof PromptGetSchema>['messages']) : [],
      };
    },
  );
}
