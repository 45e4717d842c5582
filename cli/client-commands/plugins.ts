/** plugins list: the plugin chain in chain order, with what each plugin has done. */
import { Command } from 'clipanion';
import { ClientCommand, type Io } from './client-command.js';
import { renderTable } from '../output/table.js';
import { EXIT } from '../output/exit-codes.js';

export class PluginsListCommand extends ClientCommand {
  static override paths = [['plugins', 'list']];
  static override usage = Command.Usage({ category: 'Plugins', description: 'The plugin chain and its counters, in chain order (GET /plugins)' });

  async run(io: Io): Promise<number> {
    io.print(await io.client.plugins(), (r) =>
      renderTable(
        ['NAME', 'ENABLED', 'MODE', 'PRIORITY', 'CALLS', 'BLOCKS', 'REDACTIONS', 'CACHE HITS', 'RETRIES', 'ERRORS', 'PROBLEM'],
        r.plugins.map((p) => [
          p.name,
          p.enabled ? 'yes' : 'no',
          p.execution_mode,
          String(p.priority),
          ...[p.counters.invocations, p.counters.blocks, p.counters.redactions, p.counters.cache_hits, p.counters.retries, p.counters.errors].map(String),
          p.error ?? '',
        ]),
      ),
    );
    return EXIT.ok;
  }
}
