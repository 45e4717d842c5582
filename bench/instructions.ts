/**
 * Instructions per proxied call, counted by Valgrind's callgrind: the
 * measurement this VM's missing hardware counters cannot give, and far less
 * noisy than CPU time.
 *
 *   node dist/bench/instructions.js TARGET [TARGET…] [--clients 16] [--warmup 40] [--seconds 20] [--repeat 3]
 *     TARGET: floor (bench/floor-proxy.ts) | path to a build's dist/cli/gateway.js
 *     BENCH_AUDIT=0 runs the gateways with the audit trail off.
 *
 * Each target runs alone under `valgrind --tool=callgrind`, in front of the SDK
 * fixture server over streamable HTTP, driven by SDK clients calling
 * `Client.callTool('…echo')` (the client and the backend run natively).
 * Counting is off through start-up and warm-up (the JIT settles), then
 * switched on with callgrind_control for an idle window (sessions open, no
 * calls) and a load window of the same length, each dumped. Instructions per
 * call = (load − idle, scaled to the load window) ÷ calls: what a call adds,
 * in every thread of the process (JIT compiler, GC helpers, thread pool).
 * Rounds alternate the targets; prints each run, then medians and their
 * ratio to the first target.
 *
 * Counts are not time, and valgrind slows the counted process about 50×: a
 * gateway that batches by time (the audit trail's 20 ms window) batches fewer
 * records per write than at native speed. It is for comparing builds.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { f, table } from './format.js';
import { runMain, sleep, type Proc } from './proc.js';
import { LoadGen, startFloorProxy, startGateway, startHttpBackend, work } from './harness.js';

interface Run {
  target: string;
  round: number;
  calls: number;
  errors: number;
  idlePerS: number;
  perCall: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** Counted instructions ("totals:") of the newest dump in `dir`. */
function lastDump(dir: string): number {
  const dumps = readdirSync(dir)
    .filter((name) => /^cg\.out\.\d+$/.test(name))
    .sort((a, b) => Number(a.slice(7)) - Number(b.slice(7)));
  const newest = dumps.at(-1);
  const total = newest && /^totals: (\d+)$/m.exec(readFileSync(join(dir, newest), 'utf8'));
  if (!total) throw new Error(`no callgrind dump in ${dir}`);
  return Number(total[1]);
}

async function measure(target: string, round: number, backendUrl: string, opts: { clients: number; warmup: number; seconds: number }): Promise<Run> {
  const dir = join(work, `instructions-${round}-${target === 'floor' ? 'floor' : 'gw'}-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  const valgrind = ['valgrind', '--tool=callgrind', '--smc-check=all-non-file', '--instr-atstart=no', `--callgrind-out-file=${join(dir, 'cg.out')}`];
  let proc: Proc;
  let url: string;
  let tool: string;
  if (target === 'floor') {
    ({ proc, url } = await startFloorProxy(backendUrl, valgrind));
    tool = 'echo';
  } else {
    ({ proc, url } = await startGateway(dir.slice(work.length + 1), { h: { type: 'streamable-http', url: backendUrl } }, {}, [], target, valgrind));
    tool = 'h_echo';
  }
  const control = (...args: string[]) => execFileSync('callgrind_control', [...args, String(proc.pid)], { stdio: 'ignore' });
  const lg = new LoadGen(1);
  try {
    await lg.connect({ cmd: 'connect', url, transport: 'streamable-http', clients: opts.clients, tool, listTools: true });
    await lg.run(opts.warmup, false, 'calltool');
    control('--instr=on');
    control('--zero');
    let started = performance.now();
    await sleep(opts.seconds * 1000);
    control('--dump');
    const idleMs = performance.now() - started;
    const idle = lastDump(dir);
    started = performance.now();
    const r = await lg.run(opts.seconds, true, 'calltool');
    control('--dump');
    const loadMs = performance.now() - started;
    const load = lastDump(dir);
    return {
      target,
      round,
      calls: r.calls,
      errors: r.errors,
      idlePerS: (idle / idleMs) * 1000,
      perCall: (load - idle * (loadMs / idleMs)) / r.calls,
    };
  } finally {
    await lg.close().catch(() => undefined);
    lg.stop();
    await proc.stop(10_000);
  }
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      clients: { type: 'string', default: '16' },
      warmup: { type: 'string', default: '40' },
      seconds: { type: 'string', default: '20' },
      repeat: { type: 'string', default: '3' },
    },
  });
  const [clients, warmup, seconds, repeat] = [values.clients, values.warmup, values.seconds, values.repeat].map(Number);
  if (!positionals.length) throw new Error('usage: instructions.js TARGET [TARGET…] [--clients N] [--warmup S] [--seconds S] [--repeat N]');
  if (![clients, repeat].every((n) => Number.isInteger(n) && n! >= 1) || !(warmup! >= 0 && seconds! > 0)) {
    throw new Error('--clients and --repeat take whole numbers ≥ 1, --warmup ≥ 0, --seconds > 0');
  }
  const targets = positionals.map((t) => (t === 'floor' ? t : resolve(t)));
  for (const t of targets) if (t !== 'floor' && !existsSync(t)) throw new Error(`no gateway build at ${t}`);
  for (const tool of ['valgrind', 'callgrind_control']) {
    try {
      execFileSync(tool, ['--version'], { stdio: 'ignore' });
    } catch {
      throw new Error(`${tool} not found: apt-get install valgrind`);
    }
  }
  const backend = await startHttpBackend('h', 'sdk');
  const runs: Run[] = [];
  try {
    for (let round = 1; round <= repeat!; round++) {
      // Alternate which goes first, so neither always follows the other.
      const order = round % 2 ? targets : [...targets].reverse();
      for (const target of order) {
        const run = await measure(target, round, backend.url, { clients: clients!, warmup: warmup!, seconds: seconds! });
        runs.push(run);
        console.log(
          `${target}  round ${round}: ${run.calls} calls, ${run.errors} errors, ${f(run.perCall / 1000)} k instructions/call, idle ${f(run.idlePerS / 1e6, 2)} M/s`,
        );
      }
    }
  } finally {
    await backend.proc.stop();
  }
  const base = median(runs.filter((r) => r.target === targets[0]).map((r) => r.perCall));
  console.log(`\n${clients} clients, ${repeat} rounds, ${warmup} s warm-up, ${seconds} s windows; medians, ratio to ${positionals[0]}`);
  console.log(
    table(
      ['target', 'k instructions/call', 'runs (k)', `÷ ${positionals[0]}`],
      targets.map((t, i) => {
        const mine = runs.filter((r) => r.target === t).map((r) => r.perCall);
        return [positionals[i]!, f(median(mine) / 1000), mine.map((x) => f(x / 1000)).join(' '), f(median(mine) / base, 2)];
      }),
    ),
  );
}

runMain(main);
