/** `gateway stop [NAME] [--all] [--force] [--timeout SECONDS]`: stop server sessions. */
import { Command, Option } from 'clipanion';
import { pruneStale, readSessions } from '../sessions/session-files.js';
import { DEFAULT_SESSION_NAME } from '../sessions/session-record.js';
import { stopSession, type StopOutcome } from '../sessions/stop-session.js';
import { EXIT } from '../output/exit-codes.js';
import { secondsValue } from '../option-values.js';

export class StopCommand extends Command {
  static override paths = [['stop']];
  static override usage = Command.Usage({
    description: 'Stop a server session',
    details:
      'Sends SIGTERM and waits for the graceful stop (default 10 s), then SIGKILL. `--force` sends SIGKILL at once and removes the session file. The stdio backends (their process groups) and containers of a killed server are removed after it. Without a name, stops the `default` session.',
    examples: [
      ['Stop the default session', 'gateway stop'],
      ['Stop one by name', 'gateway stop dev'],
      ['Stop everything', 'gateway stop --all'],
      ['Kill a stuck server', 'gateway stop dev --force'],
    ],
  });

  name = Option.String({ required: false });
  all = Option.Boolean('--all', false, { description: 'Stop every running session' });
  force = Option.Boolean('--force', false, { description: 'SIGKILL at once instead of a graceful stop' });
  timeout = Option.String('--timeout', '10', {
    description: 'Seconds to wait for a graceful stop before SIGKILL (default 10)',
    validator: secondsValue({ minimum: 0 }),
  });

  async execute(): Promise<number> {
    const timeoutS = this.timeout;
    if (this.all && this.name !== undefined) {
      this.context.stderr.write('Give a session name or --all, not both\n');
      return EXIT.usage;
    }
    const { live } = pruneStale(readSessions());
    const wanted = this.all ? live : live.filter((s) => s.record.name === (this.name ?? DEFAULT_SESSION_NAME));
    if (!this.all && wanted.length === 0) {
      const names = live.map((s) => s.record.name);
      this.context.stderr.write(
        `No running session named "${this.name ?? DEFAULT_SESSION_NAME}". ` + (names.length ? `Running: ${names.join(', ')}\n` : 'No sessions are running.\n'),
      );
      return EXIT.failure;
    }
    if (wanted.length === 0) {
      this.context.stdout.write('No sessions are running.\n');
      return EXIT.ok;
    }
    const outcomes = await Promise.all(wanted.map((s) => stopSession(s, { force: this.force, timeoutMs: timeoutS * 1000 })));
    for (const o of outcomes) this.context.stdout.write(`${describe(o, timeoutS)}\n`);
    return EXIT.ok;
  }
}

function describe(o: StopOutcome, timeoutS: number): string {
  const what = `session "${o.name}" (pid ${o.pid})`;
  if (o.how === 'terminated') return `Stopped ${what}`;
  if (o.how === 'killed') return `Killed ${what}`;
  return `Killed ${what}: it did not stop within ${timeoutS} s`;
}
