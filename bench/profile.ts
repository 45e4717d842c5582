/**
 * Profiles the gateway under the bench load:
 *
 *   node dist/bench/profile.js [TARGET] [clients] [seconds] [--strace]
 *     TARGET: gateway-http | gateway-stdio (bench backend behind /mcp, passthrough calls),
 *             mcp-sdk-http | mcp-sdk-stdio | sse-sdk-http | sse-sdk-stdio (SDK fixture backend behind /mcp or /sse, Client.callTool)
 *     --strace: no CPU profile; count the gateway's system calls instead (strace -f -c)
 *     --perf: no CPU profile; sample the gateway on-CPU with perf (user space, JS frames via --perf-basic-prof)
 *     --v2=pin-2026-07-28 | --v2=legacy: /mcp called by the SDK's v2 client, pinned to 2026-07-28 or at 2025-11-25 (mcp-sdk-* targets)
 *   node dist/bench/profile.js --summarize FILE [skip-ms]
 *
 * Runs the gateway with `--cpu-prof`, drives the echo load at it, stops it
 * gracefully (the profile is written on exit) and prints where its CPU went:
 * self time by package/file and the top functions by self and inclusive time.
 * The .cpuprofile is kept (path printed) for Chrome DevTools or speedscope.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runMain, sleep, startProcess, type Proc } from './proc.js';
import { LoadGen, backendCmd, loadPhase, sdkStdioCmd, startGateway, startHttpBackend, work, type Target } from './harness.js';
import type { V2Negotiation } from './v2-load-client.js';

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

/** `skipMs`: samples in the first milliseconds of the profile (start-up) are left out. */
export function summarize(file: string, skipMs = 0, top = 35): string {
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
    if (elapsed < skipMs * 1000) continue;
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
      .map(([k, v]) => `${((100 * v) / total).toFixed(1).padStart(5)}%  ${(v / 1000).toFixed(0).padStart(6)} ms  ${k}`)
      .join('\n');
  return [
    `busy ${(total / 1000).toFixed(0)} ms, idle ${(idle / 1000).toFixed(0)} ms`,
    '\n## self time by package / file',
    rows(buckets, 25),
    '\n## top functions, self time',
    rows(self, top),
    '\n## top functions, inclusive time',
    rows(incl, top),
  ].join('\n');
}

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
    console.log(summarize(args[1], Number(args[2] ?? 0)));
    return;
  }
  const strace = args.includes('--strace');
  const perf = args.includes('--perf');
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
  const spawnedAt = performance.now();
  const nodeArgs = strace ? [] : perf ? ['--perf-basic-prof-only-functions'] : ['--cpu-prof', '--cpu-prof-dir', profDir];
  const gw = await startGateway('profile', { h: { type: 'streamable-http', url: backend.url }, s: { type: 'stdio', ...stdio } }, {}, nodeArgs);
  const lg = new LoadGen(1);
  // Leave start-up, session set-up and warm-up out of the summary.
  const skipMs = performance.now() - spawnedAt + 1500;
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
    const row = await loadPhase(lg, t, clients, undefined, Number(seconds));
    console.log(JSON.stringify(row));
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
  if (strace || perf) return;
  const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no profile written in ${profDir}`);
  console.log(summarize(join(profDir, file), skipMs));
  console.log(`\nprofile: ${join(profDir, file)}`);
}

runMain(main);
