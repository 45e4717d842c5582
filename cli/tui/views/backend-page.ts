/** A backend in full: record, conditions with their transition times, container, error, labels, names it lost to another backend, its tools. */
import type { BackendRecord } from '../../client/api-types.js';
import type { Cell, PageSpec } from '../page-spec.js';
import { alignedLines } from '../columns.js';
import { line, seg, toneOf, type Line } from '../text.js';
import { backendBindings } from './backend-actions.js';
import { field, layoutFields } from './fields.js';
import { ago, clock } from './format.js';
import { lostConflicts, whyHidden } from '../../client/tool-availability.js';

export const backendPage: PageSpec = {
  title: (ctx) => `Backends › ${ctx.page.subject}`,
  lines: (ctx) => {
    const b = ctx.data.backends.find((x) => x.name === ctx.page.subject);
    if (!b) return [line(seg(`No backend named ${ctx.page.subject} (any more).`, { color: 'yellow' }))];
    const labels = Object.entries(b.labels).map(([k, v]) => `${k}=${v}`);
    const out: Line[] = layoutFields(
      [
        field('Name', seg(b.name, { bold: true })),
        field('Type', b.type),
        field('Group', b.group),
        field('Phase', seg(b.phase, { color: toneOf(b.phase) })),
        field('State', seg(b.state, { color: toneOf(b.state) })),
        field('Health', [
          seg(b.health.status, { color: toneOf(b.health.status) }),
          seg(`  latency ${b.health.latency_ms === null ? '—' : `${Math.round(b.health.latency_ms)}ms`}  checked ${clock(b.health.last_check ?? undefined)}`),
        ]),
        field('Protocol', b.protocol_version ?? 'not connected'),
        field('Catalog', `${b.capabilities.tools} tools, ${b.capabilities.resources} resources, ${b.capabilities.prompts} prompts`),
        field('Container', b.container ? `${b.container.id.slice(0, 12)}  ${b.container.image}  (${b.container.runtime})` : 'none'),
        ...(b.circuit ? [field('Circuit', seg(b.circuit, { color: CIRCUIT_TONE[b.circuit] }))] : []),
        ...(b.conflicts.length > 0 ? [field('Conflicts', seg(lostConflicts(b).join('; '), { color: 'yellow' }))] : []),
        field('Labels', labels.join(', ') || 'none'),
        ...(b.error ? [field('Error', seg(b.error, { color: 'red' }))] : []),
      ],
      ctx.width,
    );
    out.push([], line(seg('Conditions', { bold: true })), ...alignedLines(b.conditions.map(conditionCells)));
    const tools = (ctx.data.capabilities?.tools ?? []).filter((t) => t.backend === b.name);
    out.push([], line(seg(`Tools (${tools.length})`, { bold: true })));
    out.push(
      ...alignedLines(
        tools.map((t) => {
          const hidden = whyHidden(t);
          return [
            seg(t.name, { color: hidden !== undefined ? 'gray' : undefined }),
            seg(hidden !== undefined ? `(${hidden})` : '', { dim: true }),
            firstLine(t.description),
          ];
        }),
      ),
    );
    return out;
  },
  bindings: () => backendBindings((ctx) => ctx.page.subject, false),
};

function conditionCells(c: BackendRecord['conditions'][number]): Cell[] {
  // HealthCheckFailed is the one condition that is bad when true.
  const good = c.type === 'HealthCheckFailed' ? !c.status : c.status;
  return [
    c.type,
    seg(String(c.status), { color: good ? 'green' : 'red' }),
    c.reason,
    seg(`${clock(c.last_transition)} (${ago(c.last_transition)})`, { dim: true }),
    c.message,
  ];
}

const firstLine = (text: string) => text.split('\n')[0];

/** An open circuit refuses the backend's calls (circuit_breaker plugin); a half-open one lets a trial through. */
const CIRCUIT_TONE = { closed: 'green', half_open: 'yellow', open: 'red' } as const;
