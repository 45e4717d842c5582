/**
 * `gateway-client pods list|inspect NAME|stop NAME|remove NAME` against
 * Podman's libpod API. Takes parsed arguments and output streams, returns
 * the exit code (the bin does the parsing).
 */
import type { Writable } from 'node:stream';
import { missingName, printList, printRecord, withLibpod, type LibpodCommandArgs } from './libpod-session.js';

export const PODS_ACTIONS = ['list', 'inspect', 'stop', 'remove'] as const;
export type PodsAction = (typeof PODS_ACTIONS)[number];

export interface PodsArgs extends LibpodCommandArgs {
  action: PodsAction;
  name?: string;
  /** remove: also a running pod and its containers. */
  force?: boolean;
}

export function runPodsCommand(args: PodsArgs, out: Writable, err: Writable = out): Promise<number> {
  return withLibpod(args, err, async (client) => {
    if (args.action === 'list') {
      printList(args, out, await client.listPods(), {
        none: 'No pods.',
        headers: ['NAME', 'ID', 'STATUS', 'CONTAINERS'],
        row: (p) => [p.Name, p.Id.slice(0, 12), p.Status, String(p.Containers?.length ?? 0)],
      });
      return 0;
    }
    const name = args.name;
    if (!name) return missingName(err, `pods ${args.action}`);
    switch (args.action) {
      case 'inspect':
        printRecord(args, out, await client.inspectPod(name));
        return 0;
      case 'stop':
        await client.stopPod(name);
        out.write(`Stopped pod ${name}\n`);
        return 0;
      case 'remove':
        await client.removePod(name, args.force ?? false);
        out.write(`Removed pod ${name}\n`);
        return 0;
    }
  });
}
