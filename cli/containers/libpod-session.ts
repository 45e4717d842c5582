/**
 * Shared by the `containers` and `pods` commands: connect to the libpod API
 * socket (discovered, or `--socket`), or say in one line that none answered
 * (exit 1); turn a failed call into one line on stderr (exit 1).
 */
import type { Writable } from 'node:stream';
import { LibpodClient, LibpodError } from '../../runtime/containers/libpod-client.js';

export interface LibpodCommandArgs {
  /** Socket path or URL; default: discovered like the gateway's runtime. */
  socket?: string;
  env?: NodeJS.ProcessEnv;
}

export async function withLibpod(args: LibpodCommandArgs, err: Writable, run: (client: LibpodClient) => Promise<number>): Promise<number> {
  const found = await LibpodClient.connect(args.socket, args.env);
  if (!found.client) {
    err.write(`${found.reason}\n`);
    return 1;
  }
  try {
    return await run(found.client);
  } catch (e) {
    if (!(e instanceof LibpodError)) throw e;
    err.write(`${e.message}\n`);
    return 1;
  }
}

/** A subcommand that needs a name and got none: usage error (exit 2). */
export function missingName(err: Writable, command: string): number {
  err.write(`${command} needs a name\n`);
  return 2;
}
