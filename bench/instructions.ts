/**
 * Instructions per proxied call, counted by Valgrind's callgrind: the
 * measurement this VM's missing hardware counters cannot give, and far less
 * noisy than CPU time.
 *
 *   node dist/bench/instructions.js TARGET [TARGET…] [--clients 16] [--warmup 40] [--settle 10] [--seconds 20] [--repeat 3]
 *     TARGET: floor (bench/floor-proxy.ts) | path to a build's dist/cli/gateway.js,
 *     optionally followed by @MODE: its callers are then v2 clients negotiating
 *     so (`@legacy` a 2025-11-25 session, `@pin-2026-07-28` stateless), which
 *     compares the two revisions on one build by count instead of time;
 *     the same target twice is an A/A run (what the method's own spread is).
 *     BENCH_AUDIT=0 runs the gateways with the audit trail off.
 *
 * Each target runs alone under `valgrind --tool=callgrind`, in front of the SDK
 * fixture server over streamable HTTP, driven by SDK clients calling
 * `Client.callTool('…echo')` (the 1.x client unless the target names a v2
 * mode; the client and the backend run natively).
 * Counting is off through start-up and warm-up (the JIT settles), then
 * switched on with callgrind_control; after a settling pause come an idle
 * window (sessions open, no calls) and a load window of the same length,
 * each dumped. Instructions per
 * call = (load − idle, scaled to the load window) ÷ calls: what a call adds,
 * in every thread of the process (JIT compiler, GC helpers, thread pool).
 * Rounds alternate the targets; prints each run, then medians and their
 * ratio to the first target.
 *
 * Counts are not time, and valgrind slows the counted process 15–20×: a
 * gateway that batches by time (the audit trail's 20 ms window) batches fewer
 * records per write than at native speed. It is for comparing builds. One
 * run of 3 targets × 3 rounds takes about 20 minutes.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { f, table } from './format.js';
import { runMain, sleep, type Proc } from './proc.js';
import { LoadGen, startFloorProxy, startGateway, startHttpBackend, work } from './harness.js';
import { median } from './stats.js';
import type { V2Negotiation } from './v2-load-client.js';

const V2_MODES: readonly V2Negotiation[] = ['legacy', 'pin-2026-07-28', 'auto'];

/** What is counted: a build (or the floor), and the SDK line and revision its callers use. */
interface Target {
  /** The floor, or a build's dist/cli/gateway.js. */
  build: string;
  v2?: V2Negotiation;
}

/** `floor`, `PATH` or `PATH@MODE` (MODE a v2 negotiation). */
function parseTarget(spec: string): Target {
  if (spec === 'floor') return { build: spec };
  const at = spec.lastIndexOf('@');
  const mode = at > 0 ? spec.slice(at + 1) : undefined;
  if (mode !== undefined && !V2_MODES.includes(mode as V2Negotiation)) throw new Error(`${spec}: @${mode} is not one of ${V2_MODES.join(', ')}`);
  const build = resolve(mode === undefined ? spec : spec.slice(0, at));
  if (!(existsSync(build) && statSync(build).isFile())) throw new Error(`no gateway build at ${build} (give its dist/cli/gateway.js)`);
  return mode === undefined ? { build } : { build, v2: mode as V2Negotiation };
}

interface Run {
  /** Position of the target on the command line (the same build may be given twice: A/A). */
  index: number;
  round: number;
  calls: number;
  /** The idle window's count scaled to the load window, as a share of the load window's count. */
  idleShare: number;
  perCall: number;
}

interface Options {
  clients: number;
  warmup: number;
  settle: number;
  seconds: number;
}

/**
 * Drives callgrind in one process. callgrind_control exits 0 even when it
 * reached nothing, so every dump is checked by its file: the n-th requested
 * dump must be `cg.out.<n>` (counts since the previous dump or zeroing).
 */
class Callgrind {
  private dumps = 0;
  /** When the last zeroing or dump returned: the counts of a dump span the time since. */
  at = 0;
  constructor(
    private readonly pid: number,
    private readonly dir: string,
  ) {}

  /** The command a target runs under: counting off until switched on, dumps into `dir`. */
  static launcher(dir: string): string[] {
    return ['valgrind', '--tool=callgrind', '--smc-check=all-non-file', '--instr-atstart=no', `--callgrind-out-file=${join(dir, 'cg.out')}`];
  }

  control(...args: string[]): void {
    const out = execFileSync('callgrind_control', [...args, String(this.pid)], { encoding: 'utf8', stdio: 'pipe', timeout: 120_000 });
    this.at = performance.now();
    if (/No active callgrind runs/.test(out)) throw new Error(`callgrind_control ${args.join(' ')}: process ${this.pid} is not running under callgrind`);
  }

  /** Requests a dump; the instructions counted since the last dump or zeroing. */
  dump(): number {
    this.control('--dump');
    const file = join(this.dir, `cg.out.${++this.dumps}`);
    if (!existsSync(file)) throw new Error(`callgrind wrote no ${file}`);
    // Instructions are the first (here the only) event column.
    const total = /^totals: (\d+)/m.exec(readFileSync(file, 'utf8'));
    if (!total) throw new Error(`no totals in ${file}`);
    return Number(total[1]);
  }
}

async function measure(target: Target, index: number, round: number, backendUrl: string, opts: Options): Promise<Run> {
  const dir = join(work, `instructions-${round}-${index}`);
  mkdirSync(dir, { recursive: true });
  const launcher = Callgrind.launcher(dir);
  let proc: Proc;
  let url: string;
  let tool: string;
  if (target.build === 'floor') {
    ({ proc, url } = await startFloorProxy(backendUrl, launcher));
    tool = 'echo';
  } else {
    ({ proc, url } = await startGateway(dir.slice(work.length + 1), { h: { type: 'streamable-http', url: backendUrl } }, {}, [], target.build, launcher));
    tool = 'h_echo';
  }
  const cg = new Callgrind(proc.pid, dir);
  const lg = new LoadGen(1);
  try {
    await lg.connect({
      cmd: 'connect',
      url,
      transport: 'streamable-http',
      clients: opts.clients,
      tool,
      listTools: true,
      ...(target.v2 ? { v2: target.v2 } : {}),
    });
    await lg.run(opts.warmup, false, 'calltool');
    // Counting on, then a pause for what the warm-up leaves behind (audit
    // writes, JIT compiles finishing, a memory-reducing GC) before the count starts.
    cg.control('--instr=on');
    await sleep(opts.settle * 1000);
    cg.control('--zero');
    const zeroedAt = cg.at;
    await sleep(opts.seconds * 1000);
    const idle = cg.dump();
    const idleAt = cg.at;
    const r = await lg.run(opts.seconds, true, 'calltool');
    const load = cg.dump();
    // Each dump counts from the previous one, reading its file included.
    const idleMs = idleAt - zeroedAt;
    const loadMs = cg.at - idleAt;
    // A failed call's instructions are in the count but not in `calls`: a few
    // are tolerated and reported, more mean a broken run.
    if (r.calls === 0 || r.errors > r.calls / 100)
      throw new Error(`${target.build}: ${r.calls} calls, ${r.errors} errors (${r.firstError ?? 'no error text'})`);
    if (r.errors > 0) console.log(`${target.build}: ${r.errors} failed calls counted with the ${r.calls} that succeeded (${r.firstError ?? ''})`);
    const idleScaled = idle * (loadMs / idleMs);
    return { index, round, calls: r.calls, idleShare: idleScaled / load, perCall: (load - idleScaled) / r.calls };
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
      settle: { type: 'string', default: '10' },
      seconds: { type: 'string', default: '20' },
      repeat: { type: 'string', default: '3' },
    },
  });
  const [clients, warmup, settle, seconds, repeat] = [values.clients, values.warmup, values.settle, values.seconds, values.repeat].map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  if (!positionals.length) throw new Error('usage: instructions.js TARGET [TARGET…] [--clients N] [--warmup S] [--settle S] [--seconds S] [--repeat N]');
  if (![clients, repeat].every((n) => Number.isInteger(n) && n >= 1) || !(warmup >= 0 && settle >= 0 && seconds > 0)) {
    throw new Error('--clients and --repeat take whole numbers ≥ 1, --warmup and --settle ≥ 0, --seconds > 0');
  }
  const targets = positionals.map(parseTarget);
  for (const tool of ['valgrind', 'callgrind_control']) {
    try {
      execFileSync(tool, ['--version'], { stdio: 'ignore' });
    } catch {
      throw new Error(`${tool} not found: apt-get install valgrind`);
    }
  }
  const opts: Options = { clients, warmup, settle, seconds };
  const backend = await startHttpBackend('h', 'sdk');
  const runs: Run[] = [];
  try {
    for (let round = 1; round <= repeat; round++) {
      // Alternate which goes first, so none always follows another.
      const order = targets.map((t, index) => ({ t, index }));
      if (round % 2 === 0) order.reverse();
      for (const { t, index } of order) {
        const run = await measure(t, index, round, backend.url, opts);
        runs.push(run);
        console.log(
          `${positionals[index]}  round ${round}: ${run.calls} calls, ${f(run.perCall / 1000)} k instructions/call (idle ${f(100 * run.idleShare, 1)} % of the load window, subtracted)`,
        );
      }
    }
  } finally {
    await backend.proc.stop();
  }
  const perCall = (index: number) => runs.filter((r) => r.index === index).map((r) => r.perCall);
  const base = median(perCall(0));
  console.log(`\n${clients} clients, ${repeat} rounds, ${warmup} s warm-up, ${settle} s settle, ${seconds} s windows; medians, ratio to the first target`);
  console.log(
    table(
      ['target', 'k instructions/call', 'runs (k)', '÷ first'],
      targets.map((_, i) => [
        positionals[i]!,
        f(median(perCall(i)) / 1000),
        perCall(i)
          .map((x) => f(x / 1000))
          .join(' '),
        f(median(perCall(i)) / base, 2),
      ]),
    ),
  );
  console.log(`callgrind dumps: ${work}`);
}

runMain(main);
