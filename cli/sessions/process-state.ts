/**
 * Whether a pid still names the process that wrote a session file. Two traps:
 * a killed server whose parent never reaps it stays a zombie (kill(pid, 0)
 * still succeeds), and after a server died its pid can be handed to an
 * unrelated process. /proc tells both: the state letter, and the start time
 * (a process started after the session did is not the session's).
 */
import { readFileSync } from 'node:fs';

/** Linux exports process start times in USER_HZ, fixed at 100 on every architecture Node runs on. */
const USER_HZ = 100;

interface ProcStat {
  state: string;
  /** Epoch milliseconds; rounded down to the second of boot time. */
  startedAtMs: number;
}

function readStat(pid: number): ProcStat | null | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (err) {
    // No entry: gone. No /proc at all (another OS): unknown.
    return (err as NodeJS.ErrnoException).code === 'ENOENT' && procAvailable() ? null : undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces: split after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const startTicks = Number(fields[19]); // field 22 overall
  return { state: fields[0], startedAtMs: bootTimeMs() + (startTicks * 1000) / USER_HZ };
}

let bootMs: number | undefined;
function bootTimeMs(): number {
  if (bootMs !== undefined) return bootMs;
  const btime = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
  return (bootMs = btime ? Number(btime[1]) * 1000 : 0);
}

function procAvailable(): boolean {
  try {
    readFileSync('/proc/self/stat');
    return true;
  } catch {
    return false;
  }
}

/**
 * True while `pid` runs (not a zombie) and, when `startedBefore` is given,
 * was started no later than that moment (so it is not a reused pid).
 */
export function processRuns(pid: number, startedBefore?: Date): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = readStat(pid);
  if (stat === undefined) return true; // no /proc: kill(0) is all we have
  if (stat === null || stat.state === 'Z' || stat.state === 'X') return false;
  // Boot time is known to the second: allow that much before calling it another process.
  return startedBefore === undefined || stat.startedAtMs <= startedBefore.getTime() + 1000;
}
