/**
 * `gateway-client containers list|inspect NAME|logs NAME [--follow] [--stdout]|stop NAME|remove NAME`
 * against Podman's libpod API. The bin parses the command line; this takes
 * the parsed arguments and output streams and returns the exit code.
 */
import type { Writable } from 'node:stream';
import { BACKEND_LABEL } from '../../runtime/containers/labels.js';
import type { LibpodClient } from '../../runtime/containers/libpod-client.js';
import { isTerminal } from '../output/colors.js';
import { terminalSafeWriter } from '../output/terminal-safe.js';
import { missingName, printList, printRecord, withLibpod, type LibpodCommandArgs } from './libpod-session.js';

export const CONTAINERS_ACTIONS = ['list', 'inspect', 'logs', 'stop', 'remove'] as const;
export type ContainersAction = (typeof CONTAINERS_ACTIONS)[number];

export interface ContainersArgs extends LibpodCommandArgs {
  action: ContainersAction;
  name?: string;
  /** logs: keep streaming until the container stops (or `signal` aborts). */
  follow?: boolean;
  /** logs: the container's stdout too (its MCP messages, tool results included); by default only its stderr. */
  stdout?: boolean;
  /** remove: also a running container. */
  force?: boolean;
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
        printRecord(args, out, await client.inspectContainer(name));
        return 0;
      case 'logs':
        return logs(client, name, args, out);
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
  printList(args, out, await client.listContainers(), {
    none: 'No containers.',
    headers: ['NAME', 'ID', 'IMAGE', 'STATE', 'BACKEND', 'POD'],
    row: (c) => [c.Names[0] ?? '', c.Id.slice(0, 12), c.Image, c.State, c.Labels?.[BACKEND_LABEL] ?? '', c.PodName ?? ''],
  });
  return 0;
}

/**
 * The container's output is this command's output, on stdout: its stderr
 * (the server's own log lines), and with `stdout` its stdout as well, as the
 * daemon interleaves them. On a terminal it is made terminal-safe on the way.
 */
async function logs(client: LibpodClient, name: string, args: ContainersArgs, out: Writable): Promise<number> {
  const { stream, tty } = await client.containerLogs(name, { follow: args.follow ?? false, stdout: args.stdout ?? false });
  const sink = isTerminal(out) ? terminalSafeWriter(out) : out;
  await new Promise<void>((resolve) => {
    const stop = () => {
      (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
      resolve();
    };
    args.signal?.addEventListener('abort', stop, { once: true });
    if (tty) stream.on('data', (chunk: Buffer) => sink.write(chunk));
    else client.demuxStream(stream, sink, sink);
    stream.on('end', resolve);
    stream.on('close', resolve);
    stream.on('error', resolve);
  });
  return 0;
}
