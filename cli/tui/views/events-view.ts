/**
 * 6 Events: live from the event stream, newest first. `p` pauses (the list
 * stays as it is while new events keep arriving underneath) and follows
 * again; `s` raises the lowest severity shown; Enter opens an event.
 */
import type { EventRecord } from '../../client/api-types.js';
import type { PageContext, PageSpec } from '../page-spec.js';
import { SEVERITY_LEVELS, type Page } from '../ui-state.js';
import { clock, severity } from './format.js';

export const eventsPage: PageSpec = {
  title: (ctx) =>
    `Events (${shownEvents(ctx).length}) ${ctx.page.frozen ? '[paused]' : '[following]'} severity ${ctx.page.minSeverity ? `≥ ${ctx.page.minSeverity}` : 'all'}`,
  table: (ctx) => ({
    columns: [{ header: 'TIME' }, { header: 'SEVERITY' }, { header: 'BACKEND' }, { header: 'STAGE' }, { header: 'MESSAGE', flex: true }],
    rows: shownEvents(ctx).map((e) => ({ key: eventKey(e), cells: [clock(e.timestamp), severity(e), e.backend || '-', e.stage, e.message] })),
    empty: ctx.data.connecting ? 'Loading…' : 'No events.',
  }),
  bindings: (ctx) => [
    { keys: ['enter'], label: 'details', needsRow: true, run: (c, row) => row && c.tui.push('event', row.key) },
    {
      keys: ['p'],
      label: ctx.page.frozen ? 'follow again' : 'pause',
      run: (c) => c.tui.updatePage(c.page.id, (p) => ({ frozen: p.frozen ? undefined : c.data.events, cursor: 0 })),
    },
    { keys: ['s'], label: 'severity filter (cycles)', run: (c) => c.tui.updatePage(c.page.id, (p) => ({ minSeverity: nextSeverity(p), cursor: 0 })) },
  ],
};

/** The events a page shows: the frozen list while paused, else the live one, at or above its severity. */
function shownEvents(ctx: PageContext): EventRecord[] {
  const list = ctx.page.frozen ?? ctx.data.events;
  const min = ctx.page.minSeverity;
  if (!min) return list;
  const floor = SEVERITY_LEVELS.indexOf(min);
  return list.filter((e) => SEVERITY_LEVELS.indexOf(e.severity as (typeof SEVERITY_LEVELS)[number]) >= floor);
}

/** all → info → warning → error → all. */
function nextSeverity(p: Page): Page['minSeverity'] {
  const order = [undefined, 'info', 'warning', 'error'] as const;
  return order[(order.indexOf(p.minSeverity as (typeof order)[number]) + 1) % order.length];
}

export const eventKey = (e: EventRecord): string => `${e.id}@${e.timestamp}`;
