/** A backend in full: record, conditions with their transition times, container, error, labels, its tools. */
import type { PageSpec } from '../page-spec.js';
import { field, line, seg, toneOf, type Line } from '../text.js';
import { backendBindings } from './backend-actions.js';
import { ago, clock, column } from './format.js';

export const backendPage: PageSpec = {
  title: (ctx) => `Backends › ${ctx.page.subject}`,
  lines: (ctx) => {
    const b = ctx.data.backends.find((x) => x.name === ctx.page.subject);
    if (!b) return [line(seg(`No backend named ${ctx.page.subject} (any more).`, { color: 'yellow' }))];
    const out: Line[] = [
      field('Name', seg(b.name, { bold: true })),
      field('Type', b.type),
      field('Group', b.group),
      field('Phase', seg(b.phase, { color: toneOf(b.phase) })),
      field('State', seg(b.state, { color: toneOf(b.state) })),
      field('Health', [
        seg(b.health.status, { color: toneOf(b.health.status) }),
        seg(`  latency ${b.health.latency_ms === null ? '—' : `${Math.round(b.health.latency_ms)}ms`}  checked ${clock(b.health.last_check ?? undefined)}`),
      ]),
      field('Catalog', `${b.capabilities.tools} tools, ${b.capabilities.resources} resources, ${b.capabilities.prompts} prompts`),
      field('Container', b.container ? `${b.container.id.slice(0, 12)}  ${b.container.image}  (${b.container.runtime})` : 'none'),
      field(
        'Labels',
        Object.entries(b.labels)
          .map(([k, v]) => `${k}=${v}`)
          .join(', ') || 'none',
      ),
    ];
    if (b.error) out.push(field('Error', seg(b.error, { color: 'red' })));
    out.push([], line(seg('Conditions', { bold: true })));
    for (const c of b.conditions)
      out.push(
        line(
          column(c.type, 18),
          seg(String(c.status).padEnd(6), { color: c.type === 'HealthCheckFailed' ? (c.status ? 'red' : 'green') : c.status ? 'green' : 'red' }),
          column(c.reason, 20),
          seg(`${clock(c.last_transition)} (${ago(c.last_transition)})`.padEnd(24), { dim: true }),
          c.message,
        ),
      );
    const tools = (ctx.data.capabilities?.tools ?? []).filter((t) => t.backend === b.name);
    out.push([], line(seg(`Tools (${tools.length})`, { bold: true })));
    for (const t of tools)
      out.push(
        line(
          seg(column(t.name, 28), { color: t.filtered ? 'gray' : undefined }),
          seg(t.filtered ? '(filtered) ' : '', { dim: true }),
          firstLine(t.description),
        ),
      );
    return out;
  },
  bindings: () => backendBindings((ctx) => ctx.page.subject, false),
};

const firstLine = (text: string) => text.split('\n')[0];
