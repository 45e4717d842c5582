/** A prompt: its arguments; Enter edits them (JSON) and gets it (POST /prompts/get: no client token needed on /mcp). */
import type { PromptGet } from '../../client/api-types.js';
import type { PageContext, PageSpec } from '../page-spec.js';
import { alignedLines } from '../columns.js';
import { line, seg, type Line } from '../text.js';
import { field, layoutFields, type PageItem } from './fields.js';
import { contentLines, type ContentItem } from './content-lines.js';
import { parseArguments } from './json-field.js';

export const promptPage: PageSpec = {
  title: (ctx) => `Prompts › ${ctx.page.subject}`,
  open: (ctx) => {
    if (ctx.page.field !== undefined) return;
    const args = promptOf(ctx)?.arguments ?? [];
    ctx.tui.updatePage(ctx.page.id, { field: JSON.stringify(Object.fromEntries(args.map((a) => [String(a.name), '']))) });
  },
  lines: (ctx) => {
    const p = promptOf(ctx);
    if (!p) return [line(seg(`No prompt named ${ctx.page.subject} (any more).`, { color: 'yellow' }))];
    const args = alignedLines(
      p.arguments.map((a) => [
        String(a.name),
        seg(a.required ? 'required' : 'optional', { dim: true }),
        typeof a.description === 'string' ? a.description : '',
      ]),
    );
    const items: PageItem[] = [
      field('Name', seg(p.name, { bold: true })),
      field('Backend', p.backend),
      field('Description', p.description),
      [],
      line(seg('Arguments', { bold: true })),
      ...(args.length ? args : [line(seg('none', { dim: true }))]),
      [],
      field('Values', seg(ctx.page.field ?? '{}', { color: 'cyan' })),
      [],
      line(seg('Messages', { bold: true })),
    ];
    const out = layoutFields(items, ctx.width);
    if (ctx.page.busy) out.push(line(seg('Getting…', { dim: true })));
    else if (ctx.page.result) out.push(...ctx.page.result.lines);
    else out.push(line(seg('Press Enter to fill in the arguments and get the prompt.', { dim: true })));
    return out;
  },
  bindings: () => [
    { keys: ['enter', 'e'], label: 'edit arguments, then get', run: (ctx) => ctx.tui.editField(ctx.page, 'arguments> ', ctx.page.field ?? '{}') },
  ],
  submit: (ctx, text) => {
    ctx.tui.updatePage(ctx.page.id, { field: text });
    const args = parseArguments(text);
    if ('error' in args) return ctx.tui.flash(args.error, 'error');
    const values = Object.fromEntries(Object.entries(args.value).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
    const name = ctx.page.subject ?? '';
    ctx.tui.request(
      ctx.page,
      () => ctx.tui.client.getPrompt(name, values),
      (r: PromptGet) => ({ lines: messageLines(r, ctx.width) }),
    );
  },
};

function promptOf(ctx: PageContext) {
  return ctx.data.capabilities?.prompts.find((p) => p.name === ctx.page.subject);
}

function messageLines(r: PromptGet, width: number): Line[] {
  const out: Line[] = [];
  if (r.description) out.push(line(seg(r.description, { dim: true })));
  for (const m of r.messages) out.push(line(seg(`[${m.role}]`, { color: 'magenta', bold: true })), ...contentLines([m.content as ContentItem], width));
  return out;
}
