/**
 * Profiles the gateway under the bench load:
 *
 *   node dist/bench/profile.js [gateway-http|gateway-stdio] [clients] [seconds]
 *   node dist/bench/profile.js --summarize FILE [skip-ms]
 *
 * Runs the gateway with `--cpu-prof`, drives the echo load at it, stops it
 * gracefully (the profile is written on exit) and prints where its CPU went:
 * self time by package/file and the top functions by self and inclusive time.
 * The .cpuprofile is kept (path printed) for Chrome DevTools or speedscope.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { killAll } from './proc.js';
import { LoadGen, backendCmd, loadPhase, startGateway, startHttpBackend, work } from './harness.js';

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

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--summarize') {
    console.log(summarize(args[1], Number(args[2] ?? 0)));
    return;
  }
  const target = args[0] ?? 'gateway-http';
  const clients = Number(args[1] ?? 16);
  const seconds = args[2] ?? '10';
  process.env.BENCH_SECONDS = seconds;
  const profDir = join(work, 'profile');
  mkdirSync(profDir, { recursive: true });
  const backend = await startHttpBackend('h', 'bench');
  const spawnedAt = performance.now();
  const gw = await startGateway('profile', { h: { type: 'streamable-http', url: backend.url }, s: { type: 'stdio', ...backendCmd(['--name', 's']) } }, {}, [
    '--cpu-prof',
    '--cpu-prof-dir',
    profDir,
  ]);
  const lg = new LoadGen(1);
  // Leave start-up, session set-up and warm-up out of the summary.
  const skipMs = performance.now() - spawnedAt + 1500;
  try {
    const row = await loadPhase(
      lg,
      { name: target, transport: 'streamable-http', url: gw.url, tool: target === 'gateway-stdio' ? 's_echo' : 'h_echo', serverPid: () => [gw.proc.pid] },
      clients,
    );
    console.log(JSON.stringify(row));
  } finally {
    lg.stop();
    await gw.proc.stop(10_000);
    await backend.proc.stop();
  }
  const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no profile written in ${profDir}`);
  console.log(summarize(join(profDir, file), skipMs));
  console.log(`\nprofile: ${join(profDir, file)}`);
}

main()
  .then(() => {
    killAll();
    process.exit(0);
  })
  .catch((err) => {
    console.error(err);
    killAll();
    process.exit(1);
  });
