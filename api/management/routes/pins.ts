/**
 * Definitions waiting for approval (docs/tool-pinning.md): GET
 * /tools/pending and /prompts/pending show each with its diff against the
 * pin and what the suspicious-text check found; POST
 * /tools/{name}/approve and /prompts/{name}/approve pin what the backend
 * serves now, and clients get it again (with list_changed).
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  ApproveBodySchema,
  ApprovedPromptSchema,
  ApprovedToolSchema,
  NameParamsSchema,
  PendingPromptsSchema,
  PendingToolsSchema,
} from '../../../schemas/api.js';
import { NotPendingError, PromptNotFoundError, ToolNotFoundError } from '../../../schemas/errors.js';
import type { DefinitionKind } from '../../../schemas/pinning.js';
import type { Hold, RouteTable } from '../../../runtime/routing/route-table.js';
import { definitionDiff } from '../../../runtime/pinning/definition-diff.js';
import type { ManagementContext } from '../context.js';
import { BAD_REQUEST, doc, errors } from '../route-doc.js';

interface Reviewed {
  name: string;
  backend: string;
  original: string;
  hold?: Hold;
}

/** The tools or prompts of every serving backend that clients could be offered, held or not. */
function reviewed(table: RouteTable, kind: DefinitionKind): Reviewed[] {
  return kind === 'tool'
    ? table.all.tools.filter((e) => !e.filtered && !e.nameError).map((e) => ({ name: e.tool.name, backend: e.backend, original: e.original, hold: e.hold }))
    : table.all.prompts.filter((e) => !e.filtered).map((e) => ({ name: e.prompt.name, backend: e.backend, original: e.original, hold: e.hold }));
}

function pendingList(ctx: ManagementContext, kind: DefinitionKind) {
  return reviewed(ctx.serving.routes, kind)
    .flatMap((e) => {
      const waiting = e.hold && ctx.pins.pending(e.backend, kind, e.original);
      if (!e.hold || !waiting) return [];
      const { pin, pending, findings } = waiting;
      return [
        {
          name: e.name,
          backend: e.backend,
          original: e.original,
          reason: e.hold.reason,
          quarantined: e.hold.quarantined,
          since: pending.since,
          hash: pending.hash,
          pinned_hash: pin?.hash ?? null,
          findings,
          diff: definitionDiff(kind, pin?.definition, pending.definition),
        },
      ];
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

export function pinRoutes(app: FastifyInstance, ctx: ManagementContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tag = 'pins';

  r.get(
    '/tools/pending',
    { schema: { ...doc(tag, 'Tools whose definitions wait for approval, with their diffs'), response: { 200: PendingToolsSchema, ...errors() } } },
    async () => ({
      pending: pendingList(ctx, 'tool').map(({ original, diff, ...p }) => ({ ...p, tool: original, diff: { ...diff, input_schema: diff.input_schema ?? '' } })),
    }),
  );
  r.get(
    '/prompts/pending',
    { schema: { ...doc(tag, 'Prompts whose definitions wait for approval, with their diffs'), response: { 200: PendingPromptsSchema, ...errors() } } },
    async () => ({
      pending: pendingList(ctx, 'prompt').map(({ original, diff, ...p }) => ({ ...p, prompt: original, diff: { ...diff, arguments: diff.arguments ?? '' } })),
    }),
  );

  for (const kind of ['tool', 'prompt'] as const) {
    r.post(
      `/${kind}s/:name/approve`,
      {
        schema: {
          ...doc(tag, `Pin the current definition of a ${kind} and serve it again`, { role: 'operator' }),
          params: NameParamsSchema,
          body: ApproveBodySchema,
          response: {
            200: kind === 'tool' ? ApprovedToolSchema : ApprovedPromptSchema,
            ...errors({
              400: BAD_REQUEST,
              404: `Unknown ${kind} (\`${kind}_not_found\`), or not waiting for approval (\`not_pending\`).`,
              409: 'Another definition waits now than the `hash` given (`pending_definition_changed`).',
            }),
          },
        },
      },
      async (req) => {
        const { name } = req.params;
        const same = reviewed(ctx.serving.routes, kind).filter((e) => e.name === name);
        const held = same.find((e) => e.hold);
        if (!held) throw same.length > 0 ? new NotPendingError(kind, name) : kind === 'tool' ? new ToolNotFoundError(name) : new PromptNotFoundError(name);
        const pin = await ctx.pins.approve(held.backend, kind, held.original, name, req.body.hash);
        const approved = { name, backend: held.backend, approved: true, hash: pin.hash };
        return kind === 'tool' ? { ...approved, tool: held.original } : { ...approved, prompt: held.original };
      },
    );
  }
}
