/** reload, shutdown [--timeout SECONDS]. */
import { Command, Option } from 'clipanion';
import { ClientCommand, type Io } from './client-command.js';
import { renderFields } from '../output/table.js';
import { EXIT } from '../output/exit-codes.js';
import { ShutdownBodySchema } from '../../schemas/api.js';
import { integerValue } from '../option-values.js';
import type { Reload } from '../client/api-types.js';

export class ReloadCommand extends ClientCommand {
  static override paths = [['reload']];
  static override usage = Command.Usage({
    category: 'Control',
    description: 'Re-read the config file and apply the difference (POST /reload)',
    details: 'Needs feature_flags.hot_reload. Exit code 1 when the file was not accepted (its problems are listed).',
  });

  async run(io: Io): Promise<number> {
    const r = await io.client.reload();
    io.print(r, reloadText);
    return r.reloaded ? EXIT.ok : EXIT.failure;
  }
}

export function reloadText(r: Reload): string {
  const list = (names: string[]) => (names.length ? names.join(', ') : '-');
  const problems = r.errors.map((e) => `  ${e.path || '(file)'}${e.line === undefined ? '' : ` (line ${e.line})`}: ${e.message}`);
  return (
    renderFields([
      ['Reloaded', String(r.reloaded)],
      ['Added', list(r.backends_added)],
      ['Removed', list(r.backends_removed)],
      ['Changed', list(r.backends_changed)],
    ]) + (problems.length ? `Problems:\n${problems.join('\n')}\n` : '')
  );
}

export class ShutdownCommand extends ClientCommand {
  static override paths = [['shutdown']];
  static override usage = Command.Usage({ category: 'Control', description: 'Stop the gateway gracefully (POST /shutdown)' });

  timeout = Option.String('--timeout', {
    description: 'Seconds to wait for in-flight requests (default server.shutdown_timeout_s)',
    validator: integerValue(ShutdownBodySchema.properties.timeout_seconds),
  });

  async run(io: Io): Promise<number> {
    const r = await io.client.shutdown(this.timeout);
    io.print(r, () => `Gateway at ${io.client.baseUrl} is shutting down\n`);
    return EXIT.ok;
  }
}
