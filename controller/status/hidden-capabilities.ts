/**
 * Tells operators which of a backend's capabilities clients do not get
 * although its filters let them through: names another backend wins (the
 * conflict strategy; under `error` the backend is left out as a whole and the
 * reconciler reports that) and tool names that break the MCP tool-name rules.
 *
 * The route table is rebuilt on every catalog change; an event is emitted
 * only when what a backend has hidden changes, so a steady state is told once.
 * GET /capabilities shows the same per tool (`hidden_by`, `name_error`).
 */
import type { ConflictStrategy } from '../../schemas/config.js';
import { printableName } from '../../schemas/tool-name.js';
import type { RouteTable } from '../../runtime/routing/route-table.js';
import type { EventBus } from '../event-bus.js';

/** How many names a message lists before "and N more" (the event's details have them all). */
const NAMES_IN_MESSAGE = 3;

export class HiddenCapabilityReporter {
  /** What was last reported, per backend and kind of report: told again only when it changes. */
  private readonly reported = new Map<string, string>();

  constructor(
    private readonly events: EventBus,
    /** Configured backends only: the gateway's own capabilities (skills) report their clashes themselves. */
    private readonly isBackend: (name: string) => boolean,
    private readonly strategy: () => ConflictStrategy,
  ) {}

  observe(snap: RouteTable): void {
    const lost = groupBy(
      snap.conflicts.filter((c) => this.isBackend(c.loser) && !snap.rejected.has(c.loser)),
      (c) => c.loser,
    );
    const invalid = groupBy(
      snap.all.tools.filter((t) => t.nameError !== undefined && !t.filtered && this.isBackend(t.backend)),
      (t) => t.backend,
    );
    const current = new Map<string, string>();
    for (const [backend, conflicts] of lost) {
      const hidden = conflicts.map(({ kind, name, winner }) => ({ kind, name, winner }));
      const key = `${backend}\0conflict`;
      current.set(key, JSON.stringify(hidden));
      if (this.reported.get(key) === current.get(key)) continue;
      const strategy = this.strategy();
      const byWinner = [...groupBy(hidden, (h) => h.winner)].map(
        ([winner, names]) => `'${winner}' keeps ${names.length} (${listed(names.map((h) => `${h.kind} ${printableName(h.name)}`))})`,
      );
      this.events.emit({
        stage: 'conflict',
        backend,
        severity: 'warning',
        message: `${backend}: ${hidden.length} hidden from clients by conflict strategy ${strategy}: ${byWinner.join('; ')}`,
        details: { strategy, hidden },
      });
    }
    for (const [backend, tools] of invalid) {
      const names = tools.map((t) => ({ name: t.tool.name, original: t.original, reason: t.nameError! }));
      const key = `${backend}\0name`;
      current.set(key, JSON.stringify(names));
      if (this.reported.get(key) === current.get(key)) continue;
      this.events.emit({
        stage: 'catalog',
        backend,
        severity: 'warning',
        message: `${backend}: ${listed(
          names.map((n) => `tool ${n.reason}`),
          '; ',
        )}; left out (give it a valid name under backends.${backend}.rename.tools)`,
        details: { invalid_tool_names: names },
      });
    }
    this.reported.clear();
    for (const [key, value] of current) this.reported.set(key, value);
  }
}

function listed(items: string[], separator = ', '): string {
  const more = items.length - NAMES_IN_MESSAGE;
  return items.slice(0, NAMES_IN_MESSAGE).join(separator) + (more > 0 ? `${separator}and ${more} more` : '');
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}
