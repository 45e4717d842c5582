/** 4 Resources and prompts: one list; Enter reads a resource or opens a prompt to get it. */
import type { PageSpec, Row } from '../page-spec.js';
import { seg } from '../text.js';

/** Row keys say what the row is: `resource:<uri>` or `prompt:<name>`. */
export const resourcesPage: PageSpec = {
  title: (ctx) => `Resources (${ctx.data.capabilities?.resources.length ?? 0}) and prompts (${ctx.data.capabilities?.prompts.length ?? 0})`,
  table: (ctx) => {
    const caps = ctx.data.capabilities;
    const rows: Row[] = [
      ...(caps?.resources ?? []).map((r) => ({ key: `resource:${r.uri}`, cells: [seg('resource', { color: 'cyan' }), r.name, r.backend, r.uri] })),
      ...(caps?.prompts ?? []).map((p) => ({
        key: `prompt:${p.name}`,
        cells: [seg('prompt', { color: 'magenta' }), p.name, p.backend, p.description.split('\n')[0]],
      })),
    ];
    return {
      columns: [{ header: 'KIND' }, { header: 'NAME' }, { header: 'BACKEND' }, { header: 'URI / DESCRIPTION', flex: true }],
      rows,
      empty: ctx.data.connecting ? 'Loading…' : 'No resources or prompts.',
    };
  },
  bindings: () => [
    {
      keys: ['enter'],
      label: 'read the resource / get the prompt',
      needsRow: true,
      run: (ctx, row) => {
        if (!row) return;
        const [kind, ...rest] = row.key.split(':');
        ctx.tui.push(kind === 'prompt' ? 'prompt' : 'resource', rest.join(':'));
      },
    },
  ],
};
