/**
 * Profiles the gateway under the bench load:
 *
 *   node dist/bench/profile.js [TARGET] [clients] [seconds] [--strace]
 *     TARGET: gateway-http | gateway-stdio (bench backend behind /mcp, passthrough calls),
 *             mcp-sdk-http | mcp-sdk-stdio | sse-sdk-http | sse-sdk-stdio (SDK fixture backend behind /mcp or /sse, Client.callTool)
 *     --strace: no CPU profile; count the gateway's system calls instead (strace -f -c)
 *     --alloc[=promoted]: no CPU profile; sample what the gateway allocates during the load (collected objects
 *       included: bench/heap-sampling.ts), per call and by allocating function (connect and warm-up are in the
 *       sample); `=promoted`: only what outlived the young generation
 *     --perf: no CPU profile; sample the gateway on-CPU with perf (user space, JS frames via --perf-basic-prof)
 *     --v2=pin-2026-07-28 | --v2=legacy: /mcp called by the SDK's v2 client, pinned to 2026-07-28 or at 2025-11-25 (mcp-sdk-* targets)
 *     --interval=US: the CPU profile's sampling interval (default 1000 µs: too few samples to tell two builds' per-call
 *       costs apart function by function; 250 gives four times as many)
 *     BENCH_RATE=N: the load offers N calls/s (paced, as in bench/revision-compare.ts) instead of a closed loop
 *     BENCH_PIN=1: the gateway alone on CPU 0, its backends and the load on CPU 1 (as in bench/revision-compare.ts):
 *       time a write spends descheduled while the reader it woke runs is then not charged to the writer
 *   node dist/bench/profile.js --summarize FILE [skip-ms]
 *
 * The summary covers the measured phase only (its samples are picked by the
 * monotonic clock V8's profiler and process.hrtime share), and gives each
 * line in µs per call as well; the line `phase: FROM TO CALLS` says which
 * window that was, for comparing two profiles.
 *
 * Runs the gateway with `--cpu-prof`, drives the echo load at it, stops it
 * gracefully (the profile is written on exit) and prints where its CPU went:
 * self time by package/file and the top functions by self and inclusive time.
 * The .cpuprofile is kept (path printed) for Chrome DevTools or speedscope.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pinToCpu, runMain, sleep, startProcess, type Proc } from './proc.js';
import { LoadGen, backendCmd, childPids, loadPhase, sdkStdioCmd, startGateway, startHttpBackend, work, type Target } from './harness.js';
import type { V2Negotiation } from './v2-load-client.js';
import { sampleAllocations, summarizeAllocations, type AllocationView } from './heap-sampling.js';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

function bucketOf(url: string, fn: string): string {
  if (!url) return `(${fn || 'native'})`;
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) return url;
  const dist = url.indexOf('/dist/');
  return dist >= 0 ? url.slice(dist + 6) : url;
}

/** Which samples a summary counts: after `skipMs` of the profile, or between two monotonic instants (µs); per call if `calls`. */
export interface SampleWindow {
  skipMs?: number;
  fromUs?: number;
  toUs?: number;
  calls?: number;
}

export function summarize(file: string, window: SampleWindow = {}, top = 35): string {
  const { skipMs = 0, fromUs = -Infinity, toUs = Infinity, calls } = window;
  const prof = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const key = (n: ProfileNode) =>
    `${n.callFrame.functionName || '(anonymous)'} ${bucketOf(n.callFrame.url, n.callFrame.functionName)}:${n.callFrame.lineNumber + 1}`;
  const self = new Map<string, number>();
  const incl = new Map<string, number>();
  const buckets = new Map<string, number>();
  let total = 0;
  let idle = 0;
  let elapsed = 0;
  for (let i = 0; i < prof.samples.length; i++) {
    const dt = prof.timeDeltas[i] ?? 0;
    elapsed += dt;
    const at = prof.startTime + elapsed;
    if (elapsed < skipMs * 1000 || at < fromUs || at > toUs) continue;
    const node = byId.get(prof.samples[i])!;
    const fn = node.callFrame.functionName;
    if (fn === '(idle)') {
      idle += dt;
      continue;
    }
    total += dt;
    const k = key(node);
    self.set(k, (self.get(k) ?? 0) + dt);
    const b = bucketOf(node.callFrame.url, fn);
    buckets.set(b, (buckets.get(b) ?? 0) + dt);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const kk = key(byId.get(id)!);
      if (seen.has(kk)) continue;
      seen.add(kk);
      incl.set(kk, (incl.get(kk) ?? 0) + dt);
    }
  }
  const rows = (m: Map<string, number>, n: number) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `${((100 * v) / total).toFixed(1).padStart(5)}%  ${(v / 1000).toFixed(0).padStart(6)} ms${perCall(v)}  ${k}`)
      .join('\n');
  const perCall = (us: number) => (calls ? `  ${(us / calls).toFixed(1).padStart(7)} µs/call` : '');
  return [
    `busy ${(total / 1000).toFixed(0)} ms${perCall(total)}, idle ${(idle / 1000).toFixed(0)} ms`,
    '\n## self time by package / file',
    rows(buckets, 25),
    '\n## top functions, self time',
    rows(self, top),
    '\n## top functions, inclusive time',
    rows(incl, top),
  ].join('\n');
}

/** Offered calls per second (BENCH_RATE), or a closed loop. */
const RATE = process.env.BENCH_RATE ? Number(process.env.BENCH_RATE) : undefined;

/** What `profile.js` can drive: the bench backend or the SDK fixture server, behind /mcp or /sse. */
const PROFILE_TARGETS = ['gateway-http', 'gateway-stdio', 'mcp-sdk-http', 'mcp-sdk-stdio', 'sse-sdk-http', 'sse-sdk-stdio'] as const;
type ProfileTarget = (typeof PROFILE_TARGETS)[number];

/** perf report without its comment lines. */
const strip = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'))
    .map((l) => l.slice(0, 160))
    .join('\n');

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--summarize') {
    console.log(summarize(args[1], { skipMs: Number(args[2] ?? 0) }));
    return;
  }
  const strace = args.includes('--strace');
  const perf = args.includes('--perf');
  const allocArg = args.find((a) => a === '--alloc' || a.startsWith('--alloc='));
  const alloc = allocArg !== undefined;
  const allocView: AllocationView = allocArg === '--alloc=promoted' ? 'promoted' : 'all';
  const v2 = args.find((a) => a.startsWith('--v2='))?.slice('--v2='.length) as V2Negotiation | undefined;
  if (v2 !== undefined && v2 !== 'pin-2026-07-28' && v2 !== 'legacy') throw new Error('--v2=pin-2026-07-28 or --v2=legacy');
  const positional = args.filter((a) => !a.startsWith('--'));
  const target = (positional[0] ?? 'gateway-http') as ProfileTarget;
  if (!PROFILE_TARGETS.includes(target)) throw new Error(`target must be one of ${PROFILE_TARGETS.join(', ')}`);
  if (v2 && !target.startsWith('mcp-sdk-')) throw new Error('--v2 drives the mcp-sdk-* targets only');
  const clients = Number(positional[1] ?? 16);
  const seconds = positional[2] ?? '10';
  const profDir = join(work, 'profile');
  mkdirSync(profDir, { recursive: true });
  const sdkBackends = target.includes('sdk');
  const backend = await startHttpBackend('h', sdkBackends ? 'sdk' : 'bench');
  const stdio = sdkBackends ? sdkStdioCmd('s') : backendCmd(['--name', 's']);
  const interval = args.find((a) => a.startsWith('--interval='))?.slice('--interval='.length);
  const sampling = interval ? [`--cpu-prof-interval=${Number(interval)}`] : [];
  const nodeArgs = strace
    ? []
    : perf
      ? ['--perf-basic-prof-only-functions']
      : alloc
        ? ['--inspect=127.0.0.1:0']
        : ['--cpu-prof', '--cpu-prof-dir', profDir, ...sampling];
  const gw = await startGateway('profile', { h: { type: 'streamable-http', url: backend.url }, s: { type: 'stdio', ...stdio } }, {}, nodeArgs);
  const lg = new LoadGen(1);
  if (process.env.BENCH_PIN === '1') {
    pinToCpu([gw.proc.pid], 0);
    pinToCpu([...childPids(gw.proc.pid), backend.proc.pid, ...lg.pids, process.pid], 1);
  }
  let phase: SampleWindow | undefined;
  let tracer: Proc | undefined;
  try {
    const viaSse = target.startsWith('sse-');
    const t: Target = {
      name: target,
      transport: viaSse ? 'sse' : 'streamable-http',
      url: viaSse ? `${gw.base}/sse` : gw.url,
      tool: target.endsWith('stdio') ? 's_echo' : 'h_echo',
      serverPid: () => [gw.proc.pid],
      method: sdkBackends ? 'calltool' : 'call',
      v2,
    };
    // Syscall counts of the gateway's main thread and its thread pool during the phase.
    const perfData = join(profDir, 'perf.data');
    if (strace) tracer = startProcess('strace', 'strace', ['-f', '-c', '-p', String(gw.proc.pid)]);
    // On-CPU samples of user space only (perf_event_paranoid 2 allows no more): unlike --cpu-prof,
    // time the thread spends descheduled inside a system call is not counted.
    if (perf) tracer = startProcess('perf', 'perf', ['record', '-e', 'cpu-clock:u', '-F', '1999', '-g', '-o', perfData, '-p', String(gw.proc.pid)]);
    if (tracer) await sleep(500);
    const inspector = alloc ? /Debugger listening on (ws:\/\/\S+)/.exec(gw.proc.stderr())?.[1] : undefined;
    if (alloc && !inspector) throw new Error('the gateway printed no inspector address');
    const sampling = inspector ? await sampleAllocations(inspector, allocView) : undefined;
    const row = await loadPhase(lg, t, clients, undefined, Number(seconds), RATE);
    // The measured phase (start-up, session set-up and warm-up left out): it ended just now and lasted calls ÷ rate.
    const endUs = Number(process.hrtime.bigint() / 1000n);
    phase = { fromUs: endUs - (row.calls / row.calls_per_s) * 1e6, toUs: endUs, calls: row.calls };
    console.log(JSON.stringify(row));
    if (sampling) {
      const head = await sampling.stop();
      const saved = join(profDir, 'gateway.heapprofile');
      writeFileSync(saved, JSON.stringify({ head }));
      console.log(`${summarizeAllocations(head, row.calls, allocView)}\nheap profile (DevTools, Memory tab): ${saved}`);
    }
    if (tracer) {
      tracer.child.kill('SIGINT');
      await tracer.exited;
      if (strace) console.log(`strace -c over ${row.calls} measured calls (plus warm-up and connect):\n${tracer.stderr()}`);
    }
    if (perf) {
      const report = (extra: string[]) =>
        execFileSync('perf', ['report', '-i', perfData, '--stdio', '--no-children', '--percent-limit', '0.4', ...extra], {
          encoding: 'utf8',
          maxBuffer: 64 * 2 ** 20,
        });
      console.log('## on-CPU (user space) by shared object\n' + strip(report(['--sort', 'dso', '-g', 'none'])));
      console.log('## on-CPU (user space) by symbol\n' + strip(report(['--sort', 'sym', '-g', 'none'])));
      console.log(`perf data: ${perfData} (perf report -i ${perfData})`);
    }
  } finally {
    lg.stop();
    await gw.proc.stop(10_000);
    await backend.proc.stop();
  }
  if (strace || perf || alloc) return;
  const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no profile written in ${profDir}`);
  if (!phase) throw new Error('the load phase did not finish');
  console.log(`phase: ${phase.fromUs?.toFixed(0)} ${phase.toUs?.toFixed(0)} ${phase.calls}`);
  console.log(summarize(join(profDir, file), phase));
  console.log(`\nprofile: ${join(profDir, file)}`);
}

runMain(main);
