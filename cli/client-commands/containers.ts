/**
 * `containers …` and `pods …`: the local container daemon (Podman's libpod
 * API over its Unix socket), not the gateway. The work is done by
 * cli/containers/, loaded only when one of these runs (its daemon client
 * would slow every other command's start); these classes parse the command
 * line. The socket is `--socket`, else found like the gateway's runtime with
 * the config's `containers.socket` first (`--config`, else the config of
 * the local gateway session).
 */
import { Command, Option } from 'clipanion';
import type { ContainersAction } from '../containers/containers-command.js';
import type { PodsAction } from '../containers/pods-command.js';
import type { ClientContext } from './client-command.js';
import { OUTPUT_FORMATS } from '../output/format.js';
import { integerValue, oneOf } from '../option-values.js';

abstract class LocalDaemonCommand extends Command<ClientContext> {
  socket = Option.String('--socket', { description: 'Podman API socket (default: discovered, as the gateway does)' });
  config = Option.String('-c,--config', {
    description: 'Gateway config whose containers.socket is tried first (default: the config of the running gateway session)',
  });
  output = Option.String('-o,--output', { description: 'table, json or yaml (default table)', validator: oneOf(OUTPUT_FORMATS) });
  // Accepted for symmetry with the other commands; the daemon is local, so they change nothing.
  server = Option.String('-s,--server', { hidden: true });
  token = Option.String('-t,--token', { hidden: true });
  color = Option.Boolean('--color', { hidden: true });

  protected get common() {
    return { socket: this.socket, config: this.config, format: this.output ?? this.context.defaults?.output };
  }
}

abstract class ContainersCommand extends LocalDaemonCommand {
  protected abstract readonly action: ContainersAction;
  name = Option.String({ name: 'name', required: false });
  follow = Option.Boolean('-f,--follow', false, { description: 'logs: keep streaming until the container stops' });
  stdout = Option.Boolean('--stdout', false, {
    description: "logs: also the container's stdout (its MCP messages, tool results included); by default only its stderr",
  });
  force = Option.Boolean('--force', false, { description: 'remove: also a running container' });
  timeout = Option.String('--timeout', { description: 'stop: seconds before SIGKILL (default 10)', validator: integerValue({ minimum: 0 }) });

  async execute(): Promise<number> {
    const { runContainersCommand } = await import('../containers/containers-command.js');
    return runContainersCommand(
      {
        ...this.common,
        action: this.action,
        name: this.name,
        follow: this.follow,
        stdout: this.stdout,
        force: this.force,
        timeout: this.timeout,
        signal: this.context.signal,
      },
      this.context.stdout,
      this.context.stderr,
    );
  }
}

const containers = (action: ContainersAction, description: string) =>
  class extends ContainersCommand {
    static override paths = [['containers', action]];
    static override usage = Command.Usage({ category: 'Containers (local daemon)', description });
    protected readonly action = action;
  };

abstract class PodsCommand extends LocalDaemonCommand {
  protected abstract readonly action: PodsAction;
  name = Option.String({ name: 'name', required: false });
  force = Option.Boolean('--force', false, { description: 'remove: also a running pod' });

  async execute(): Promise<number> {
    const { runPodsCommand } = await import('../containers/pods-command.js');
    return runPodsCommand({ ...this.common, action: this.action, name: this.name, force: this.force }, this.context.stdout, this.context.stderr);
  }
}

const pods = (action: PodsAction, description: string) =>
  class extends PodsCommand {
    static override paths = [['pods', action]];
    static override usage = Command.Usage({ category: 'Containers (local daemon)', description });
    protected readonly action = action;
  };

export const CONTAINER_COMMANDS = [
  containers('list', 'Containers of the local Podman daemon'),
  containers('inspect', 'One container, as the daemon describes it'),
  containers('logs', 'A container’s stderr (--stdout: its stdout too; --follow to keep streaming)'),
  containers('stop', 'Stop a container'),
  containers('remove', 'Remove a container (--force: also a running one)'),
  pods('list', 'Pods of the local Podman daemon'),
  pods('inspect', 'One pod, as the daemon describes it'),
  pods('stop', 'Stop a pod'),
  pods('remove', 'Remove a pod (--force: also a running one)'),
];
