/** `gateway status`: the running server sessions, their URLs, uptime and health. */
import { Command, Option } from 'clipanion';
import { sessionStatuses } from '../sessions/session-status.js';
import { colors, paintStatus, wantColor } from '../output/colors.js';
import { formatDuration, renderTable } from '../output/table.js';
import { EXIT } from '../output/exit-codes.js';
import { oneOf } from '../option-values.js';

export class StatusCommand extends Command {
  static override paths = [['status']];
  static override usage = Command.Usage({
    description: 'List running server sessions',
    details:
      'One line per session: name, pid, URL, uptime and the aggregate health from its /manage/v1/health (`unreachable` when the process lives but does not answer). Files left by servers that died are removed.',
    examples: [
      ['Table', 'gateway status'],
      ['JSON for scripts', 'gateway status -o json'],
    ],
  });

  output = Option.String('-o,--output', 'table', { description: 'table or json', validator: oneOf(['table', 'json']) });

  async execute(): Promise<number> {
    const { sessions, pruned } = await sessionStatuses();
    for (const name of pruned) this.context.stderr.write(`Removed the stale session file of "${name}" (its process is gone)\n`);
    if (this.output === 'json') {
      this.context.stdout.write(`${JSON.stringify({ sessions }, null, 2)}\n`);
      return EXIT.ok;
    }
    if (sessions.length === 0) {
      this.context.stdout.write('No running gateway sessions. Start one with `gateway server -d`.\n');
      return EXIT.ok;
    }
    const c = colors(wantColor(this.context.stdout));
    const rows = sessions.map((s) => [
      s.name,
      String(s.pid),
      s.url,
      formatDuration(s.uptime_seconds),
      paintStatus(c, s.health),
      s.backends ? `${s.backends.healthy}/${s.backends.total} healthy` : '-',
    ]);
    this.context.stdout.write(renderTable(['NAME', 'PID', 'URL', 'UPTIME', 'HEALTH', 'BACKENDS'], rows));
    return EXIT.ok;
  }
}
