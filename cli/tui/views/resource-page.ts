/** A resource, read when opened (Enter reads it again). */
import type { PageContext, PageSpec } from '../page-spec.js';
import { field, line, seg, type Line } from '../text.js';
import { contentLines } from './content-lines.js';

export const resourcePage: PageSpec = {
  title: (ctx) => `Resources › ${ctx.page.subject}`,
  open: (ctx) => read(ctx),
  lines: (ctx) => {
    const info = ctx.data.capabilities?.resources.find((r) => r.uri === ctx.page.subject);
    const out: Line[] = [field('URI', seg(ctx.page.subject ?? '', { bold: true }))];
    if (info) out.push(field('Name', info.name), field('Backend', info.backend), field('MIME type', info.mime_type || '—'));
    out.push([], line(seg('Contents', { bold: true })));
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
