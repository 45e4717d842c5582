/**
 * The process groups of a server's stdio backends. The gateway starts each
 * stdio backend as the leader of its own process group and, when it stops,
 * signals each whole group (runtime/transports/process-group-stdio-transport.ts).
 * A server killed with SIGKILL cannot: its backends would run on, reparented
 * to init. So the CLI reads them from /proc while the server still runs, and
 * kills them after it.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** `ppid` and `pgrp` of a process, from /proc/<pid>/stat; undefined when it is gone (or there is no /proc). */
function parentAndGroup(pid: number): { ppid: number; pgrp: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces: split after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(fields[1]), pgrp: Number(fields[2]) };
}

/** The process groups led by children of `pid` (its stdio backends): none without /proc. */
export function backendGroupsOf(pid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const groups: number[] = [];
  for (const entry of entries) {
    const child = Number(entry);
    if (!Number.isInteger(child) || child <= 0) continue;
    const stat = parentAndGroup(child);
    // Only a child that leads its own group: never the server's own group, nor anything else's.
    if (stat?.ppid === pid && stat.pgrp === child) groups.push(child);
  }
  return groups;
}

/** SIGKILL to each group (each backend and whatever it started); groups already gone are skipped. */
export function killGroups(groups: readonly number[]): void {
  for (const group of groups) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
    }
  }
}
