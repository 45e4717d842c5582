/**
 * `gateway tui` (and the `gateway-tui` program): the terminal UI. Only this
 * file loads with the command line; Ink, React and the TUI load when it runs.
 */
import { Command, Option } from 'clipanion';

export class TuiCommand extends Command {
  static override paths = [['tui']];
  static override usage = Command.Usage({
    description: 'Terminal UI for running gateways',
    details:
      'Live views of a gateway (dashboard, backends, tools, resources and prompts, sessions, events, skills, registry, plugins) and of the servers it knows: ' +
      'the servers file (--servers-config, default $XDG_CONFIG_HOME/mcp-gateway/servers.json), --server, and the running local sessions. Press ? in it for the keys.',
    examples: [
      ['The default server (or the servers file)', 'gateway tui'],
      ['A given gateway, looking only', 'gateway tui --server http://127.0.0.1:9100 --read-only'],
    ],
  });

  server = Option.String('-s,--server', {
    description: 'Gateway URL to open (default: the active server of the servers file, else $GATEWAY_URL, the default session, http://127.0.0.1:9000)',
  });
  serversConfig = Option.String('--servers-config', {
    description: 'The servers file (default $XDG_CONFIG_HOME/mcp-gateway/servers.json, else ~/.config/mcp-gateway/servers.json)',
  });
  token = Option.String('-t,--token', { description: 'Management API token, for --server and for servers the file gives none (default $GATEWAY_MGMT_TOKEN)' });
  readOnly = Option.Boolean('--read-only', false, {
    description: 'Look only: every action (reconnect, calls, reload, shutdown, edits of the servers file) is hidden',
  });

  async execute(): Promise<number> {
    const { runTui } = await import('./launch.js');
    return runTui({ server: this.server, serversConfig: this.serversConfig, token: this.token, readOnly: this.readOnly }, this.context);
  }
}
