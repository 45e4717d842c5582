/** A resource, read when opened (Enter reads it again). */
import type { PageContext, PageSpec } from '../page-spec.js';
import { line, seg } from '../text.js';
import { field, layoutFields, type PageItem } from './fields.js';
import { contentLines } from './content-lines.js';

export const resourcePage: PageSpec = {
  title: (ctx) => `Resources › ${ctx.page.subject}`,
  open: (ctx) => read(ctx),
  lines: (ctx) => {
    const info = ctx.data.capabilities?.resources.find((r) => r.uri === ctx.page.subject);
    const items: PageItem[] = [field('URI', seg(ctx.page.subject ?? '', { bold: true }))];
    if (info) items.push(field('Name', info.name), field('Backend', info.backend), field('MIME type', info.mime_type || '—'));
    const out = layoutFields([...items, [], line(seg('Contents', { bold: true }))], ctx.width);
    if (ctx.page.busy) out.push(line(seg('Reading…', { dim: true })));
    else if (ctx.page.result) out.push(...ctx.page.result.lines);
    return out;
  },
  bindings: () => [{ keys: ['enter'], label: 'read again', run: (ctx) => read(ctx) }],
};

function read(ctx: PageContext): void {
  const uri = ctx.page.subject ?? '';
  ctx.tui.request(
    ctx.page,
    () => ctx.tui.client.readResource(uri),
    (r) => ({
      lines: r.contents.flatMap((c) => [
        line(seg(`${c.uri}  ${c.mimeType || ''}`, { dim: true })),
        ...(c.text !== undefined
          ? contentLines([{ type: 'text', text: c.text }], ctx.width)
          : [line(seg(`[binary] ${c.blob?.length ?? 0} characters of base64`, { color: 'cyan' }))]),
      ]),
    }),
  );
}
