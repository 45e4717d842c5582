/**
 * Process plumbing for the bench: spawning with captured output, reading CPU
 * time and RSS from /proc, and making sure every child dies with the run.
 */
import { spawn, execFileSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { createInterface } from 'node:readline';

/** Clock ticks per second of /proc/<pid>/stat times (`getconf CLK_TCK`). */
export const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

export interface Proc {
  name: string;
  child: ChildProcess;
  pid: number;
  /** Everything written to stdout and stderr so far (last 64 KiB each). */
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout/stderr line matching, or rejects on exit/timeout. */
  waitForLine(re: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(graceMs?: number): Promise<void>;
}

const live = new Set<Proc>();

/** Kills every child still alive (SIGKILL to its process group). Safe to call more than once. */
export function killAll(): void {
  for (const p of live) killGroup(p.child, 'SIGKILL');
  live.clear();
}
process.once('exit', killAll);

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal); // the child leads its own group (detached)
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

const KEEP = 64 * 1024;

/**
 * `stdoutFile`: the child's stdout goes to this file instead of a pipe to the bench.
 * A gateway with its audit trail on prints a line per call; read through a pipe,
 * the bench itself would spend CPU on every one of them, on the cores the
 * measured processes share. The file is read only while a line is awaited.
 */
export function startProcess(name: string, command: string, args: string[], opts: SpawnOptions & { stdoutFile?: string } = {}): Proc {
  const { stdoutFile, ...spawnOpts } = opts;
  const outFd = stdoutFile === undefined ? undefined : openSync(stdoutFile, 'w');
  const child = spawn(command, args, { stdio: ['ignore', outFd ?? 'pipe', 'pipe'], detached: true, ...spawnOpts });
  if (outFd !== undefined) closeSync(outFd);
  let out = '';
  let err = '';
  const waiters: Array<{ re: RegExp; resolve: (m: RegExpExecArray) => void }> = [];
  const onLine = (line: string) => {
    for (let i = waiters.length - 1; i >= 0; i--) {
      const m = waiters[i].re.exec(line);
      if (m) {
        waiters[i].resolve(m);
        waiters.splice(i, 1);
      }
    }
  };
  if (child.stdout) {
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out = (out + c).slice(-KEEP);
    });
    createInterface({ input: child.stdout }).on('line', onLine);
  }
  let fileLines: FileLines | undefined;
  if (stdoutFile !== undefined) {
    fileLines = new FileLines(stdoutFile, onLine);
    const poll = setInterval(() => {
      if (waiters.length > 0) fileLines!.read();
    }, 20);
    poll.unref();
    child.once('exit', () => clearInterval(poll));
  }
  if (child.stderr) {
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      err = (err + c).slice(-KEEP);
      if (process.env.BENCH_DEBUG) process.stderr.write(`[${name}] ${c}`);
    });
    createInterface({ input: child.stderr }).on('line', onLine);
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(proc);
      resolve({ code, signal });
    });
    child.once('error', () => resolve({ code: -1, signal: null }));
  });
  const proc: Proc = {
    name,
    child,
    pid: child.pid ?? -1,
    stdout: () => (stdoutFile === undefined ? out : tail(stdoutFile)),
    stderr: () => err,
    exited,
    waitForLine(re, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${name}: no line matching ${re} within ${timeoutMs} ms\nstdout: ${out.slice(-2000)}\nstderr: ${err.slice(-2000)}`)),
          timeoutMs,
        );
        waiters.push({
          re,
          resolve: (m) => {
            clearTimeout(timer);
            resolve(m);
          },
        });
        void exited.then(({ code, signal }) => {
          clearTimeout(timer);
          reject(new Error(`${name} exited (code ${code}, signal ${signal}) before printing ${re}\nstdout: ${out.slice(-2000)}\nstderr: ${err.slice(-2000)}`));
        });
      });
    },
    async stop(graceMs = 3000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      killGroup(child, 'SIGTERM');
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
      killGroup(child, 'SIGKILL'); // stragglers in the group (stdio backends)
    },
  };
  live.add(proc);
  return proc;
}

/** Reads the lines appended to a file since the last call. */
class FileLines {
  private offset = 0;
  private pending = '';

  constructor(
    private readonly path: string,
    private readonly onLine: (line: string) => void,
  ) {}

  read(): void {
    const fd = openSync(this.path, 'r');
    try {
      const buf = Buffer.alloc(64 * 1024);
      for (;;) {
        const n = readSync(fd, buf, 0, buf.length, this.offset);
        if (n <= 0) break;
        this.offset += n;
        this.pending += buf.toString('utf8', 0, n);
      }
    } finally {
      closeSync(fd);
    }
    const lines = this.pending.split('\n');
    this.pending = lines.pop() ?? '';
    for (const line of lines) this.onLine(line);
  }
}

function tail(path: string): string {
  try {
    const text = readFileSync(path, 'utf8');
    return text.slice(-KEEP);
  } catch {
    return '';
  }
}

/** User and system CPU time of a process (all its threads), in microseconds, from /proc/<pid>/stat. */
function cpuTimes(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may contain spaces.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: (Number(rest[11]) * 1e6) / CLK_TCK, system: (Number(rest[12]) * 1e6) / CLK_TCK };
}

/** User + system CPU time of a process (all its threads), in microseconds. */
export function cpuMicros(pid: number): number {
  const { user, system } = cpuTimes(pid);
  return user + system;
}

/**
 * System CPU time alone, in microseconds: the kernel's share, where a write
 * to a loopback socket also delivers it to the reader (so a syscall count
 * does not tell it; this does).
 */
export function systemCpuMicros(pid: number): number {
  return cpuTimes(pid).system;
}

/**
 * Voluntary context switches of a process's main thread, from /proc/<pid>/status:
 * each one is the event loop going to sleep in epoll_wait and being woken up again.
 */
export function mainThreadWakeups(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /^voluntary_ctxt_switches:\s+(\d+)/m.exec(status);
  return m ? Number(m[1]) : 0;
}

/** Resident set size in bytes, from /proc/<pid>/status. */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmRSS:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) * 1024 : 0;
}

/** Children of a process (direct), from /proc/<pid>/task/<pid>/children. */
export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * Binds every thread of each process to one CPU (`taskset`, util-linux). A
 * comparison whose callers differ in their own cost (one client line is
 * heavier than another) can put the gateway and its load generator on
 * separate CPUs, so the heavier caller does not slow the gateway by sharing
 * its core.
 */
export function pinToCpu(pids: readonly number[], cpu: number): void {
  for (const pid of pids) execFileSync('taskset', ['--all-tasks', '--pid', '--cpu-list', String(cpu), String(pid)], { stdio: 'ignore' });
}

/** 1-minute load average, for the record: a busy machine makes every number noisier. */
export function loadAverage(): number[] {
  return readFileSync('/proc/loadavg', 'utf8').trim().split(/\s+/).slice(0, 3).map(Number);
}

export { setTimeout as sleep } from 'node:timers/promises';

/** Runs a bench script's main(): every child is killed and `cleanup` runs however it ends (done, failed, Ctrl-C, SIGTERM), and the exit code says how. */
export function runMain(main: () => Promise<void>, cleanup: () => void = () => {}): void {
  const end = (code: number) => {
    killAll();
    try {
      cleanup();
    } catch {
      // best effort: the exit code says how the run went
    }
    process.exit(code);
  };
  process.once('SIGINT', () => end(130));
  process.once('SIGTERM', () => end(143));
  main().then(
    () => end(0),
    (err: unknown) => {
      console.error(err);
      end(1);
    },
  );
}
