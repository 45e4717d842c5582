/** 1 Dashboard: the service, its health, backends by phase, quarantined tools, sessions, the catalog and the newest events. */
import { PHASES } from '../../../schemas/records.js';
import type { PageContext, PageSpec } from '../page-spec.js';
import { line, seg, toneOf, type Line } from '../text.js';
import { field, layoutFields, type Field } from './fields.js';
import { clock, formatDuration } from './format.js';
import { eventLines } from './event-line.js';
import { isCallable } from '../../client/tool-availability.js';

export const dashboardPage: PageSpec = {
  title: () => 'Dashboard',
  lines: (ctx) => [...overview(ctx), [], line(seg('Recent events', { bold: true })), ...recentEvents(ctx)],
  bindings: () => [
    {
      keys: ['S'],
      label: 'shut the gateway down',
      action: true,
      run: (ctx) =>
        ctx.tui.confirm(`Shut down the gateway at ${ctx.data.url}? It stops serving every client.`, () =>
          ctx.tui.act(
            () => ctx.tui.client.shutdown(),
            () => ({ text: 'The gateway is shutting down' }),
          ),
        ),
    },
  ],
};

function overview({ data, width }: PageContext): Line[] {
  const { status, health, capabilities: caps, sessions, skills } = data;
  if (!status && !health) return [line(seg(data.connecting ? 'Connecting…' : 'No data yet: the gateway has not answered.', { dim: true }))];
  const fields: Field[] = [];
  const service = status?.service;
  fields.push(
    field('Service', [
      seg(`${service?.name ?? 'gateway'} ${service?.version ?? health?.version ?? ''}`, { bold: true }),
      seg('  '),
      seg(service?.state ?? '', { color: toneOf(service?.state ?? '') }),
      seg(`  up ${formatDuration(service?.uptime_seconds ?? health?.uptime_seconds ?? 0)}`),
    ]),
  );
  if (status) {
    fields.push(field('Endpoints', `${status.transport.streamable_http_url}  ${status.transport.sse_url}`));
    const flags = Object.entries(status.feature_flags)
      .filter(([, on]) => on)
      .map(([name]) => name);
    fields.push(field('Config', `${status.config.file_path} (loaded ${clock(status.config.loaded_at)})`));
    fields.push(field('Features', flags.length ? flags.join(', ') : 'none'));
  }
  if (health)
    fields.push(
      field('Health', [
        seg(health.status, { color: toneOf(health.status), bold: true }),
        seg(`  ${health.backends.healthy}/${health.backends.total} backends healthy, ${health.backends.connected} connected`),
      ]),
    );
  fields.push(field('Backends', byPhase(data.backends)));
  const quarantined = quarantinedTools(data.backends);
  if (quarantined) fields.push(field('Quarantined', quarantined));
  if (sessions) fields.push(field('Sessions', `${sessions.active_sessions} active, ${sessions.sessions.length} in all`));
  if (caps) fields.push(field('Catalog', `${caps.tools.filter(isCallable).length} tools, ${caps.resources.length} resources, ${caps.prompts.length} prompts`));
  if (skills) fields.push(field('Skills', `${skills.skills.filter((s) => s.status === 'enabled').length} enabled of ${skills.skills.length}`));
  return layoutFields(fields, width);
}

/** `Ready 2 (alpha, beta)  Failed 1 (gamma)`, in lifecycle order, each phase in its colour. */
function byPhase(backends: Array<{ name: string; phase: string }>): Line {
  if (backends.length === 0) return [seg('none configured', { dim: true })];
  const phases = backends.map((b) => b.phase);
  const order = [...PHASES, ...new Set(phases.filter((p) => !(PHASES as readonly string[]).includes(p)))];
  const out: Line = [];
  for (const phase of order) {
    const names = backends.filter((b) => b.phase === phase).map((b) => b.name);
    if (names.length === 0) continue;
    if (out.length) out.push(seg('  '));
    out.push(seg(`${phase} ${names.length}`, { color: toneOf(phase) }), seg(` (${names.sort().join(', ')})`));
  }
  return out;
}

/** `2 tools wait for approval (fx 2)`, in red; undefined when none does. */
function quarantinedTools(backends: Array<{ name: string; quarantined_tools: number }>): Line | undefined {
  const held = backends.filter((b) => b.quarantined_tools > 0);
  const total = held.reduce((n, b) => n + b.quarantined_tools, 0);
  if (total === 0) return undefined;
  return [
    seg(`${total} tool${total === 1 ? '' : 's'} wait${total === 1 ? 's' : ''} for approval`, { color: 'red', bold: true }),
    seg(` (${held.map((b) => `${b.name} ${b.quarantined_tools}`).join(', ')}; Tools view, a approves)`),
  ];
}

function recentEvents({ data }: PageContext): Line[] {
  if (data.events.length === 0) return [line(seg('none yet', { dim: true }))];
  return eventLines(data.events.slice(0, 50));
}
