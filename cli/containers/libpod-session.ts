/**
 * Shared by the `containers` and `pods` commands: connect to the libpod API
 * socket (`--socket`, else found like the gateway's runtime with the
 * config's `containers.socket` first), or say in one line that none answered
 * (exit 1); turn a failed call into one line on stderr (exit 1); print
 * lists and records as a table (terminal-safe) or exact JSON/YAML.
 */
import type { Writable } from 'node:stream';
import { LibpodClient, LibpodError } from '../../runtime/containers/libpod-client.js';
import { renderData, renderOutput, type OutputFormat } from '../output/format.js';
import { renderTable } from '../output/table.js';
import { localConfiguredSocket } from './configured-socket.js';

export interface LibpodCommandArgs {
  /** Socket path or URL; default: discovered like the gateway's runtime. */
  socket?: string;
  /** The gateway config whose `containers.socket` is tried first (default: the local session's config). */
  config?: string;
  /** Default table. */
  format?: OutputFormat;
  env?: NodeJS.ProcessEnv;
}

export async function withLibpod(args: LibpodCommandArgs, err: Writable, run: (client: LibpodClient) => Promise<number>): Promise<number> {
  let configured: string | undefined;
  try {
    configured = args.socket ? undefined : localConfiguredSocket(args.config, args.env);
  } catch (e) {
    err.write(`Cannot read ${args.config}: ${(e as Error).message}\n`);
    return 1;
  }
  const found = await LibpodClient.connect(args.socket, args.env, configured);
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

/** A list as JSON/YAML (the daemon's objects as they are), or a table of `row`s (`none` when empty). */
export function printList<T>(args: LibpodCommandArgs, out: Writable, items: T[], table: { none: string; headers: string[]; row: (item: T) => string[] }): void {
  out.write(renderOutput(args.format ?? 'table', items, (safe) => (safe.length === 0 ? `${table.none}\n` : renderTable(table.headers, safe.map(table.row)))));
}

/** One object as the daemon describes it: JSON unless YAML was asked for. */
export function printRecord(args: LibpodCommandArgs, out: Writable, record: unknown): void {
  out.write(renderData(args.format === 'yaml' ? 'yaml' : 'json', record));
}

/** A subcommand that needs a name and got none: usage error (exit 2). */
export function missingName(err: Writable, command: string): number {
  err.write(`${command} needs a name\n`);
  return 2;
}
