/**
 * `gateway-client containers list|inspect NAME|logs NAME [--follow]|stop NAME|remove NAME`
 * against Podman's libpod API. The bin parses the command line; this takes
 * the parsed arguments and output streams and returns the exit code.
 */
import type { Writable } from 'node:stream';
import { BACKEND_LABEL } from '../../runtime/containers/labels.js';
import type { LibpodClient } from '../../runtime/containers/libpod-client.js';
import { missingName, withLibpod, type LibpodCommandArgs } from './libpod-session.js';
import { formatTable } from './table.js';

export const CONTAINERS_ACTIONS = ['list', 'inspect', 'logs', 'stop', 'remove'] as const;
export type ContainersAction = (typeof CONTAINERS_ACTIONS)[number];

export interface ContainersArgs extends LibpodCommandArgs {
  action: ContainersAction;
  name?: string;
  /** logs: keep streaming until the container stops (or `signal` aborts). */
  follow?: boolean;
  /** remove: also a running container. */
  force?: boolean;
  /** list: JSON instead of a table. */
  json?: boolean;
  /** stop: seconds before SIGKILL (default 10). */
  timeout?: number;
  signal?: AbortSignal;
}

export function runContainersCommand(args: ContainersArgs, out: Writable, err: Writable = out): Promise<number> {
  return withLibpod(args, err, async (client) => {
    if (args.action === 'list') return list(client, args, out);
    const name = args.name;
    if (!name) return missingName(err, `containers ${args.action}`);
    switch (args.action) {
      case 'inspect':
        out.write(`${JSON.stringify(await client.inspectContainer(name), null, 2)}\n`);
        return 0;
      case 'logs':
        return logs(client, name, args, out, err);
      case 'stop':
        await client.stopContainer(name, args.timeout);
        out.write(`Stopped ${name}\n`);
        return 0;
      case 'remove':
        await client.removeContainer(name, args.force ?? false);
        out.write(`Removed ${name}\n`);
        return 0;
    }
  });
}

async function list(client: LibpodClient, args: ContainersArgs, out: Writable): Promise<number> {
  const containers = await client.listContainers();
  if (args.json) {
    out.write(`${JSON.stringify(containers, null, 2)}\n`);
    return 0;
  }
  const rows = containers.map((c) => [c.Names[0] ?? '', c.Id.slice(0, 12), c.Image, c.State, c.Labels?.[BACKEND_LABEL] ?? '', c.PodName ?? '']);
  out.write(rows.length === 0 ? 'No containers.\n' : formatTable(['NAME', 'ID', 'IMAGE', 'STATE', 'BACKEND', 'POD'], rows));
  return 0;
}

async function logs(client: LibpodClient, name: string, args: ContainersArgs, out: Writable, err: Writable): Promise<number> {
  const { stream, tty } = await client.containerLogs(name, args.follow ?? false);
  await new Promise<void>((resolve) => {
    const stop = () => {
      (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
      resolve();
    };
    args.signal?.addEventListener('abort', stop, { once: true });
    if (tty) stream.on('data', (chunk: Buffer) => out.write(chunk));
    else client.demuxStream(stream, out, err);
    stream.on('end', resolve);
    stream.on('close', resolve);
    stream.on('error', resolve);
  });
  return 0;
}
