/**
 * Who owns a container: the gateway process that created it, written into
 * the `mcp-gateway.owner` label as `<host>/<pid>/<start>`. `gateway clean`
 * leaves alone the containers of a gateway that is still running and removes
 * the rest. The process start time (from /proc) guards against a reused pid.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

export interface Owner {
  host: string;
  pid: number;
  /** Start time of the process in clock ticks since boot; 0 where /proc is absent. */
  start: number;
}

export function currentOwner(): Owner {
  return { host: hostname(), pid: process.pid, start: processStart(process.pid) ?? 0 };
}

export function formatOwner(owner: Owner): string {
  return `${owner.host}/${owner.pid}/${owner.start}`;
}

export function parseOwner(label: string | undefined): Owner | undefined {
  const m = label ? /^(.+)\/(\d+)\/(\d+)$/.exec(label) : null;
  return m ? { host: m[1]!, pid: Number(m[2]), start: Number(m[3]) } : undefined;
}

/**
 * Whether the owning gateway still runs. A container of another host (a
 * shared remote daemon) is assumed to be in use: this host cannot tell.
 */
export function ownerAlive(owner: Owner | undefined): boolean {
  if (!owner) return false;
  if (owner.host !== hostname()) return true;
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const start = processStart(owner.pid);
  return start === undefined || owner.start === 0 || start === owner.start;
}

/** Field 22 of /proc/<pid>/stat (after the parenthesised command name, which may hold spaces). */
function processStart(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = Number(fields[19]);
    return Number.isFinite(start) ? start : undefined;
  } catch {
    return undefined;
  }
}
