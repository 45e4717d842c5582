/** registry search QUERY, registry install NAME: the external MCP server registries. */
import { Command, Option } from 'clipanion';
import { ClientCommand, type Io } from './client-command.js';
import { clip, renderTable } from '../output/table.js';
import { EXIT } from '../output/exit-codes.js';
import { HintedFailure } from '../output/report-error.js';
import { RegistrySearchQuerySchema } from '../../schemas/api.js';
import { integerValue } from '../option-values.js';

const LIMIT = RegistrySearchQuerySchema.properties.limit;
import { ApiError } from '../client/errors.js';
import { reloadText } from './control.js';

export class RegistrySearchCommand extends ClientCommand {
  static override paths = [['registry', 'search']];
  static override usage = Command.Usage({
    category: 'Registry',
    description: 'Search the configured MCP server registries (GET /registry/search)',
    examples: [['Two words', 'gateway-client registry search "file system" --limit 5']],
  });

  query = Option.String();
  limit = Option.String('--limit', { description: `At most N results (default ${LIMIT.default}, at most ${LIMIT.maximum})`, validator: integerValue(LIMIT) });
  registry = Option.String('--registry', { description: 'Only this registry' });

  async run(io: Io): Promise<number> {
    io.print(await io.client.registrySearch(this.query, { limit: this.limit, registry: this.registry }), (r) =>
      renderTable(
        ['NAME', 'VERSION', 'TRANSPORT', 'DESCRIPTION'],
        r.servers.map((s) => [s.name, s.version, s.transport, clip(s.description, 50)]),
      ),
    );
    return EXIT.ok;
  }
}

export class RegistryInstallCommand extends ClientCommand {
  static override paths = [['registry', 'install']];
  static override usage = Command.Usage({
    category: 'Registry',
    description: 'Add a registry server as a backend (POST /registry/install)',
    details: 'Writes the backend into the config and reloads. Exit code 1 when a backend of that name exists (409).',
  });

  name = Option.String();
  registry = Option.String('--registry', { description: 'The registry to take it from' });
  backendName = Option.String('--backend-name', { description: 'Backend name in the config (default derived from the server name)' });

  async run(io: Io): Promise<number> {
    const r = await io.client.registryInstall({ name: this.name, registry: this.registry, backend_name: this.backendName }).catch((err: unknown) => {
      // The server's message names no parameter (the API has backend_name): say which flag it is here.
      throw err instanceof ApiError && err.body.error === 'backend_exists'
        ? new HintedFailure(err, 'install it under another name with --backend-name NAME')
        : err;
    });
    io.print(r, (safe) => {
      const applied = safe.reload ? reloadText(safe.reload) : 'Hot reload is off: it applies when the gateway next starts.\n';
      return `Installed ${safe.entry.name} ${safe.entry.version} as backend ${safe.backend}\n${applied}`;
    });
    return EXIT.ok;
  }
}
