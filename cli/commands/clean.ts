/**
 * `gateway clean [--all]`: removes the containers the gateway created that
 * no running gateway owns; `--all` also its images and network. Selection
 * is by the `mcp-gateway.managed=true` label, never by name.
 */
import { Command, Option } from 'clipanion';

export class CleanCommand extends Command {
  static override paths = [['clean']];
  static override usage = Command.Usage({
    description: 'Remove containers (and with --all images and the network) the gateway created',
    details:
      'Removes containers labelled mcp-gateway.managed=true whose gateway is no longer running. ' +
      'With --all also the images and the network the gateway created. The runtime socket comes from the config (containers.socket) when one is found, else it is discovered.',
    examples: [
      ['Remove leftover containers', 'gateway clean'],
      ['Remove everything the gateway created', 'gateway clean --all'],
    ],
  });

  all = Option.Boolean('--all', false, { description: 'Also remove images and the network' });
  config = Option.String('--config,-c', { description: 'Config file path (for containers.socket)' });

  async execute(): Promise<number> {
    const out = this.context.stdout;
    // Loaded here, not at the top: the config loader compiles its validators on import (see build.ts).
    const [{ loadConfigFile, locateConfigFile }, { GatewayError }] = await Promise.all([
      import('../../controller/config/config-loader.js'),
      import('../../schemas/errors.js'),
    ]);
    let socket: string | undefined;
    try {
      socket = loadConfigFile(locateConfigFile(this.config)).config.containers.socket;
    } catch (err) {
      if (!(err instanceof GatewayError)) throw err;
      // Without --config, no config file is fine: the socket is discovered.
      if (this.config) {
        this.context.stderr.write(`${err.message}\n`);
        return 1;
      }
    }
    // Loaded here, not at the top: the runtime client costs every other `gateway` command half a second to import.
    const { connectRuntime } = await import('../../runtime/containers/container-runtime.js');
    const { cleanManaged } = await import('../../runtime/containers/cleanup.js');
    const found = await connectRuntime(socket);
    if (!found.runtime) {
      this.context.stderr.write(`Cannot clean: ${found.reason}\n`);
      return 1;
    }
    const report = await cleanManaged(found.runtime, { all: this.all });
    for (const r of report.removed) out.write(`Removed ${r.kind} ${r.name}${r.backend ? ` (backend ${r.backend})` : ''}\n`);
    for (const k of report.kept) out.write(`Kept ${k.kind} ${k.name}: ${k.why}\n`);
    for (const f of report.failed) this.context.stderr.write(`Could not remove ${f.kind} ${f.name}: ${f.error}\n`);
    if (report.removed.length === 0 && report.failed.length === 0) out.write('Nothing to clean.\n');
    return report.failed.length === 0 ? 0 : 1;
  }
}
