/** events list [--limit N] [--severity S], events follow (the live stream, until Ctrl-C). */
import { Command, Option } from 'clipanion';
import { ClientCommand, type Io } from './client-command.js';
import { renderTable, StreamingTable } from '../output/table.js';
import { terminalSafe } from '../output/terminal-safe.js';
import { paintStatus } from '../output/colors.js';
import { EXIT } from '../output/exit-codes.js';
import { followEvents } from '../client/event-stream.js';
import type { EventRecord } from '../client/api-types.js';
import { EventsQuerySchema } from '../../schemas/api.js';
import { SEVERITIES, STAGES } from '../../schemas/records.js';
import { integerValue, isoTimestampValue, oneOf } from '../option-values.js';

const LIMIT = EventsQuerySchema.properties.limit;

export class EventsListCommand extends ClientCommand {
  static override paths = [['events', 'list']];
  static override usage = Command.Usage({ category: 'Events', description: 'Recent events, oldest first (GET /events)' });

  limit = Option.String('--limit', {
    description: `Newest N events (default ${LIMIT.default}, at most ${LIMIT.maximum})`,
    validator: integerValue(LIMIT),
  });
  severity = Option.String('--severity', { description: SEVERITIES.join(', '), validator: oneOf(SEVERITIES) });
  since = Option.String('--since', { description: 'ISO 8601 date or date-time: only later events', validator: isoTimestampValue });

  async run(io: Io): Promise<number> {
    const events = await io.client.events({ limit: this.limit, severity: this.severity, since: this.since });
    io.print(events, (e) =>
      renderTable(
        EVENT_HEADERS,
        e.events.map((ev) => eventCells(io, ev)),
      ),
    );
    return EXIT.ok;
  }
}

export class EventsFollowCommand extends ClientCommand {
  static override paths = [['events', 'follow']];
  static override usage = Command.Usage({
    category: 'Events',
    description: 'Print live events as they happen, one line each, until Ctrl-C (GET /events/stream)',
    details: 'With -o json, one JSON object per line. Reconnects when the gateway goes away and comes back.',
  });

  async run(io: Io): Promise<number> {
    const stop = new AbortController();
    const onSigint = () => stop.abort();
    // In one-shot mode Ctrl-C is a signal; in the REPL it aborts io.signal.
    if (!this.context.signal) process.once('SIGINT', onSigint);
    let everOpened = false;
    const table = await this.followTable(io);
    try {
      await followEvents(
        io.client,
        {
          onOpen: () => {
            if (everOpened) io.err(`${io.c.dim('(event stream reconnected)')}\n`);
            everOpened = true;
          },
          onDrop: (err) => {
            if (!everOpened && err) throw err;
            io.notice(err?.message, (why) => `${io.c.dim(`(event stream lost${why ? `: ${why}` : ''}; reconnecting)`)}\n`);
          },
          onEvent: (event) => io.printRecord(event, (ev) => table.row(eventCells(io, ev))),
        },
        { signal: AbortSignal.any([stop.signal, io.signal]), maxDelayMs: 2000 },
      );
    } finally {
      process.off('SIGINT', onSigint);
    }
    return EXIT.ok;
  }

  /** Columns as wide as their known values (every severity and stage, the backends there are now), so lines stay aligned. */
  private async followTable(io: Io): Promise<StreamingTable> {
    const backends =
      io.format === 'table'
        ? await io.client.backends().then(
            (b) => b.backends.map((r) => r.name),
            () => [],
          )
        : [];
    const widest = (values: readonly string[]) => Math.max(0, ...values.map((v) => terminalSafe(v).length));
    const table = new StreamingTable(EVENT_HEADERS, [new Date(0).toISOString().length, widest(SEVERITIES), widest(backends), widest(STAGES)]);
    if (io.format === 'table') io.out(table.header());
    return table;
  }
}

const EVENT_HEADERS = ['TIME', 'SEVERITY', 'BACKEND', 'STAGE', 'MESSAGE'];

function eventCells(io: Io, e: EventRecord): string[] {
  return [e.timestamp, paintStatus(io.c, e.severity), e.backend || '-', e.stage, e.message];
}
