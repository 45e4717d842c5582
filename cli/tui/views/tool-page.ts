/**
 * A tool: its description and input schema; Enter edits the arguments (JSON)
 * and calls it, showing the result and `isError`. A tool clients cannot call
 * says why instead, and is not called.
 */
import type { Binding, PageContext, PageSpec } from '../page-spec.js';
import { line, seg, textLines } from '../text.js';
import { field, layoutFields } from './fields.js';
import { argumentSkeleton, parseArguments } from './json-field.js';
import { contentLines } from './content-lines.js';
import { findTool, nameInKey } from './tools-view.js';
import { whyHidden, whyHiddenInFull } from '../../client/tool-availability.js';

export const toolPage: PageSpec = {
  title: (ctx) => `Tools › ${nameInKey(ctx.page.subject ?? '')}`,
  open: (ctx) => {
    if (ctx.page.field === undefined) ctx.tui.updatePage(ctx.page.id, { field: argumentSkeleton(toolOf(ctx)?.input_schema) });
  },
  lines: (ctx) => {
    const tool = toolOf(ctx);
    if (!tool) return [line(seg(`No tool named ${nameInKey(ctx.page.subject ?? '')} (any more).`, { color: 'yellow' }))];
    const hidden = whyHiddenInFull(tool);
    // Arguments and result first: they are what changes, and must not hide below the fold.
    const out = layoutFields(
      [
        field('Name', seg(tool.name, { bold: true })),
        field('Backend', `${tool.backend} (as ${tool.original_name})`),
        field('Description', tool.description),
        hidden !== undefined ? field('Not callable', seg(hidden, { color: 'red' })) : field('Arguments', seg(ctx.page.field ?? '{}', { color: 'cyan' })),
        [],
        line(seg('Result', { bold: true })),
      ],
      ctx.width,
    );
    if (ctx.page.busy) out.push(line(seg('Calling…', { dim: true })));
    else if (ctx.page.result) out.push(...ctx.page.result.lines);
    else if (hidden !== undefined) out.push(line(seg('Clients can neither see nor call this tool.', { dim: true })));
    else out.push(line(seg(ctx.ui.readOnly ? 'Read-only: calls are off.' : 'Press Enter to edit the arguments and call the tool.', { dim: true })));
    out.push([], line(seg('Input schema', { bold: true })), ...textLines(JSON.stringify(tool.input_schema, null, 2), ctx.width, { color: 'gray' }));
    return out;
  },
  // A tool clients cannot call offers nothing to do.
  bindings: (ctx) => {
    const tool = toolOf(ctx);
    return tool && whyHidden(tool) !== undefined ? [] : callBindings;
  },
  submit: (ctx, text) => {
    ctx.tui.updatePage(ctx.page.id, { field: text });
    call(ctx, text);
  },
};

const callBindings: Binding[] = [
  {
    keys: ['enter', 'e'],
    label: 'edit arguments, then call',
    action: true,
    run: (ctx) => ctx.tui.editField(ctx.page, 'arguments> ', ctx.page.field ?? '{}'),
  },
  { keys: ['c'], label: 'call with these arguments', action: true, run: (ctx) => call(ctx, ctx.page.field ?? '{}') },
];

function toolOf(ctx: PageContext) {
  return findTool(ctx.data.capabilities?.tools, ctx.page.subject ?? '');
}

function call(ctx: PageContext, text: string): void {
  const tool = toolOf(ctx);
  if (!tool) return ctx.tui.flash(`No tool named ${nameInKey(ctx.page.subject ?? '')} (any more)`, 'error');
  const hidden = whyHidden(tool);
  if (hidden !== undefined) return ctx.tui.flash(`${tool.name} of ${tool.backend} is not callable: ${hidden}`, 'error');
  const args = parseArguments(text);
  if ('error' in args) return ctx.tui.flash(args.error, 'error');
  const name = tool.name;
  ctx.tui.request(
    ctx.page,
    () => ctx.tui.client.callTool(name, args.value),
    (r) => ({
      lines: [
        ...layoutFields([field('isError', seg(String(r.isError), { color: r.isError ? 'red' : 'green', bold: true }))], ctx.width),
        ...contentLines(r.content, ctx.width),
      ],
      failed: r.isError,
    }),
  );
}
