/** resources list, resources read URI. */
import { Command, Option } from 'clipanion';
import { ClientCommand, type Io } from './client-command.js';
import { renderTable } from '../output/table.js';
import { EXIT } from '../output/exit-codes.js';
import { count } from '../output/plural.js';

export class ResourcesListCommand extends ClientCommand {
  static override paths = [['resources', 'list']];
  static override usage = Command.Usage({ category: 'Capabilities', description: 'Resources (GET /capabilities?type=resources)' });

  backend = Option.String('--backend', { description: 'Only the resources of this backend' });

  async run(io: Io): Promise<number> {
    io.print(await io.client.capabilities({ type: 'resources', backend: this.backend }), (caps) =>
      renderTable(
        ['URI', 'NAME', 'BACKEND', 'MIME TYPE'],
        caps.resources.map((r) => [r.uri, r.name, r.backend, r.mime_type]),
      ),
    );
    return EXIT.ok;
  }
}

export class ResourcesReadCommand extends ClientCommand {
  static override paths = [['resources', 'read']];
  static override usage = Command.Usage({
    category: 'Capabilities',
    description: 'Read a resource (POST /resources/read, or MCP resources/read with --mcp-token)',
  });

  uri = Option.String();

  async run(io: Io): Promise<number> {
    io.print(await io.calls.readResource(this.uri, io.signal), (r) =>
      r.contents
        .map((c) => {
          const body = c.text ?? `(${count(Buffer.from(c.blob ?? '', 'base64').length, 'byte')} of ${c.mimeType || 'binary data'}; use -o json for the base64)`;
          return body.endsWith('\n') ? body : `${body}\n`;
        })
        .join(''),
    );
    return EXIT.ok;
  }
}
