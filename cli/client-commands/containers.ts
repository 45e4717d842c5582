/**
 * `containers …` and `pods …`: the local container daemon (Podman's libpod
 * API over its Unix socket), not the gateway. The work is done by
 * cli/containers/; these classes only parse the command line. The socket is
 * discovered like the gateway's own runtime, or given with `--socket`.
 */
import { Command, Option } from 'clipanion';
import { runContainersCommand, type ContainersAction } from '../containers/containers-command.js';
import { runPodsCommand, type PodsAction } from '../containers/pods-command.js';
import type { ClientContext } from './client-command.js';

abstract class LocalDaemonCommand extends Command<ClientContext> {
  socket = Option.String('--socket', { description: 'Podman API socket (default: discovered, as the gateway does)' });
  output = Option.String('-o,--output', { description: 'json for JSON, anything else for a table' });
  // Accepted for symmetry with the other commands; the daemon is local, so they change nothing.
  server = Option.String('-s,--server', { hidden: true });
  token = Option.String('-t,--token', { hidden: true });
  color = Option.Boolean('--color', { hidden: true });

  protected get json(): boolean {
    return (this.output ?? this.context.defaults?.output) === 'json';
  }
}

abstract class ContainersCommand extends LocalDaemonCommand {
  protected abstract readonly action: ContainersAction;
  name = Option.String({ required: false });
  follow = Option.Boolean('-f,--follow', false, { description: 'logs: keep streaming until the container stops' });
  force = Option.Boolean('--force', false, { description: 'remove: also a running container' });
  timeout = Option.String('--timeout', { description: 'stop: seconds before SIGKILL (default 10)' });

  execute(): Promise<number> {
    const timeout = this.timeout === undefined ? undefined : Number(this.timeout);
    return runContainersCommand(
      {
        action: this.action,
        name: this.name,
        follow: this.follow,
        force: this.force,
        json: this.json,
        timeout,
        socket: this.socket,
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
  name = Option.String({ required: false });
  force = Option.Boolean('--force', false, { description: 'remove: also a running pod' });

  execute(): Promise<number> {
    return runPodsCommand(
      { action: this.action, name: this.name, force: this.force, json: this.json, socket: this.socket },
      this.context.stdout,
      this.context.stderr,
    );
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
  containers('logs', 'A container’s output (--follow to keep streaming)'),
  containers('stop', 'Stop a container'),
  containers('remove', 'Remove a container (--force: also a running one)'),
  pods('list', 'Pods of the local Podman daemon'),
  pods('inspect', 'One pod, as the daemon describes it'),
  pods('stop', 'Stop a pod'),
  pods('remove', 'Remove a pod (--force: also a running one)'),
];
