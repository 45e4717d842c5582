/**
 * Building blocks shared by bench/run.ts and bench/profile.ts: bench and
 * fixture backends, the gateway and mcp-hub as their own processes, the
 * load generator workers and one measured load phase.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../test/fixtures/spawn.js';
import type { LoadCommand, LoadMethod, RunResult } from './loadgen.js';
import type { V2Negotiation } from './v2-load-client.js';
import { childPids, cpuMicros, loadAverage, systemCpuMicros, mainThreadWakeups, rssBytes, sleep, startProcess, type Proc } from './proc.js';

export { childPids, rssBytes };

const env = process.env;
/** BENCH_QUICK=1: short phases and fewer repeats, for a look in a few minutes (noisier figures). */
export const QUICK = env.BENCH_QUICK === '1';
export const SECONDS = Number(env.BENCH_SECONDS ?? (QUICK ? 1.5 : 3));
export const WARMUP = Number(env.BENCH_WARMUP ?? (QUICK ? 0.5 : 1));
export const AUDIT = env.BENCH_AUDIT !== '0';

export const ROOT = repoRoot();
export const NODE = process.execPath;
const DIST = join(ROOT, 'dist');
export const BACKEND_JS = join(DIST, 'bench', 'backend.js');
export const FIXTURE_JS = join(DIST, 'test', 'fixtures', 'fixture-server-main.js');
/** BENCH_GATEWAY: another build's cli/gateway.js, e.g. a checkout of the code before a change. */
export const GATEWAY_JS = env.BENCH_GATEWAY || join(DIST, 'cli', 'gateway.js');
const LOADGEN_JS = join(DIST, 'bench', 'loadgen.js');
const NO_NETWORK_JS = join(DIST, 'bench', 'no-network.js');
/** Node arguments that let `collectGarbage` run a full GC in the process (see gc-on-signal.ts). */
export const GC_ON_SIGNAL_ARGS = ['--expose-gc', '--import', join(DIST, 'bench', 'gc-on-signal.js')];

export interface MemoryReading {
  rssMb: number;
  /** V8 heap in use after a full GC: what the process still references. */
  heapUsedMb: number;
}

/** A full GC in a process started with GC_ON_SIGNAL_ARGS, and its memory right after. */
export async function collectGarbage(proc: Proc): Promise<MemoryReading> {
  const readings = () => [...proc.stderr().matchAll(/BENCH_MEMORY (\{.*\})/g)].map((m) => m[1]!);
  const before = readings().length;
  process.kill(proc.pid, 'SIGUSR2');
  for (let i = 0; i < 100; i++) {
    await sleep(100);
    const all = readings();
    if (all.length > before) {
      const r = JSON.parse(all.at(-1)!) as { rss: number; heapUsed: number };
      return { rssMb: r.rss / 2 ** 20, heapUsedMb: r.heapUsed / 2 ** 20 };
    }
  }
  throw new Error(`${proc.name} did not report its memory after SIGUSR2`);
}
const HUB_JS = join(ROOT, 'node_modules', 'mcp-hub', 'dist', 'cli.js');

/** Scratch directory of this run (configs, audit files, mcp-hub's home). */
export const work = mkdtempSync(join(tmpdir(), 'gw-bench-'));

/** Removes `work` at the end of a run that prints all it measured (runMain's cleanup); runs that print paths into it keep it. */
export const removeWork = (): void => rmSync(work, { recursive: true, force: true });

export function pct(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

export const backendCmd = (args: string[]) => ({ command: NODE, args: [BACKEND_JS, '--transport', 'stdio', ...args] });

/** The SDK fixture server (an `McpServer`) over stdio, as a backend command. */
export const sdkStdioCmd = (name: string) => ({ command: NODE, args: [FIXTURE_JS, '--transport', 'stdio', '--name', name] });

/**
 * `bench`: the cheap bench backend; `fixture`: the SDK fixture server with plain JSON
 * answers; `sdk`: the SDK fixture server as the SDK serves by default (SSE-framed answers).
 */
export async function startHttpBackend(name: string, script: 'bench' | 'fixture' | 'sdk', extra: string[] = []): Promise<{ proc: Proc; url: string }> {
  const args =
    script === 'bench'
      ? [BACKEND_JS, '--transport', 'http', '--name', name, ...extra]
      : [FIXTURE_JS, '--transport', 'streamable-http', ...(script === 'fixture' ? ['--json-response'] : []), '--name', name, ...extra];
  const proc = startProcess(`${script}-backend-${name}`, NODE, args);
  const m = await proc.waitForLine(/^LISTENING (\d+)$/, 15_000);
  return { proc, url: `http://127.0.0.1:${m[1]}/mcp` };
}

/** A command the process is run under (`valgrind --tool=callgrind …`), or none. */
const launch = (launcher: readonly string[], args: string[]): [string, string[]] =>
  launcher.length ? [launcher[0]!, [...launcher.slice(1), NODE, ...args]] : [NODE, args];

/** The bare node:http pass-through proxy (bench/floor-proxy.ts) in front of an HTTP backend. */
export async function startFloorProxy(targetUrl: string, launcher: readonly string[] = []): Promise<{ proc: Proc; url: string }> {
  const proc = startProcess('floor-proxy', ...launch(launcher, [join(DIST, 'bench', 'floor-proxy.js'), '--target', targetUrl]));
  const m = await proc.waitForLine(/^LISTENING (\d+)$/, launcher.length ? 600_000 : 15_000);
  // The proxy forwards the path it is asked for: ask for the backend's own.
  const { pathname, search } = new URL(targetUrl);
  return { proc, url: `http://127.0.0.1:${m[1]}${pathname}${search}` };
}

export interface GatewayProc {
  proc: Proc;
  url: string;
  base: string;
  /** Milliseconds from spawn to the "listening" line (the gateway listens once every backend settled). */
  startMs: number;
}

/**
 * Node options for every gateway the bench starts (`BENCH_GATEWAY_NODE_FLAGS`,
 * space-separated), e.g. `--no-allocation-site-pretenuring` to measure a V8
 * setting (docs/performance.md, "Counted, pinned, and pretenuring").
 */
const GATEWAY_NODE_FLAGS = (env.BENCH_GATEWAY_NODE_FLAGS ?? '').split(' ').filter(Boolean);

export async function startGateway(
  name: string,
  backends: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  nodeArgs: string[] = [],
  /** Which build's cli/gateway.js to run (default: GATEWAY_JS). */
  gatewayJs = GATEWAY_JS,
  launcher: readonly string[] = [],
): Promise<GatewayProc> {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  const config = {
    version: '1',
    server: { host: '127.0.0.1', port: 0, session_ttl: 3600 },
    backends,
    audit: { enabled: AUDIT, file: join(dir, 'audit.jsonl') },
    logging: { level: 'warn' },
    ...extra,
  };
  const configPath = join(dir, 'config.yaml'); // JSON is YAML
  writeFileSync(configPath, JSON.stringify(config, null, 2));
  const started = performance.now();
  const [command, args] = launch(launcher, [
    ...GATEWAY_NODE_FLAGS,
    ...nodeArgs,
    gatewayJs,
    'server',
    '--config',
    configPath,
    '--port',
    '0',
    '--log-level',
    'warn',
    '--log-format',
    'pretty',
  ]);
  const proc = startProcess(`gateway-${name}`, command, args, { cwd: dir, stdoutFile: join(dir, 'stdout.log') });
  const m = await proc.waitForLine(/Streamable HTTP\s+(http:\/\/\S+)\/mcp/, launcher.length ? 600_000 : 120_000);
  const startMs = performance.now() - started;
  return { proc, url: `${m[1]}/mcp`, base: m[1], startMs };
}

export async function gatewayConnected(base: string): Promise<number | undefined> {
  try {
    const res = await fetch(`${base}/manage/v1/health`);
    const body = (await res.json()) as { backends?: { connected?: number } };
    return body.backends?.connected;
  } catch {
    return undefined;
  }
}

export interface HubProc {
  proc: Proc;
  url: string;
  startMs: number;
}

/** mcp-hub with its home, state and cache in the bench's temp dir (a fresh marketplace cache, so it fetches nothing). */
export async function startHub(name: string, servers: Record<string, unknown>): Promise<HubProc> {
  const dir = join(work, `hub-${name}`);
  const dataHome = join(dir, 'data');
  mkdirSync(join(dataHome, 'mcp-hub', 'cache'), { recursive: true });
  writeFileSync(
    join(dataHome, 'mcp-hub', 'cache', 'registry.json'),
    JSON.stringify({
      registry: { version: 'bench', generatedAt: Date.now(), totalServers: 1, servers: [{ id: 'bench', name: 'bench', description: 'placeholder' }] },
      lastFetchedAt: Date.now(),
      serverDocumentation: {},
    }),
  );
  const configPath = join(dir, 'mcp-servers.json');
  writeFileSync(configPath, JSON.stringify({ mcpServers: servers }, null, 2));
  const port = await freePort();
  const started = performance.now();
  const proc = startProcess(`mcp-hub-${name}`, NODE, ['--import', NO_NETWORK_JS, HUB_JS, '--port', String(port), '--config', configPath], {
    cwd: dir,
    stdoutFile: join(dir, 'stdout.log'),
    env: {
      ...process.env,
      HOME: dir,
      XDG_DATA_HOME: dataHome,
      XDG_STATE_HOME: join(dir, 'state'),
      XDG_CONFIG_HOME: join(dir, 'config'),
      XDG_CACHE_HOME: join(dir, 'cache'),
    },
  });
  const want = Object.keys(servers).length;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (Date.now() > deadline) throw new Error(`mcp-hub not ready within 120 s\n${proc.stderr().slice(-3000)}`);
    if (proc.child.exitCode !== null)
      throw new Error(`mcp-hub exited with ${proc.child.exitCode}\n${proc.stdout().slice(-3000)}\n${proc.stderr().slice(-3000)}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/health`);
      const body = (await res.json()) as { state?: string; servers?: Array<{ status?: string }> };
      const connected = (body.servers ?? []).filter((s) => s.status === 'connected').length;
      if (body.state === 'ready' && connected >= want) break;
    } catch {
      // not listening yet
    }
    await sleep(20);
  }
  return { proc, url: `http://127.0.0.1:${port}/mcp`, startMs: performance.now() - started };
}

// ---------------------------------------------------------------- load generator

export class LoadGen {
  private readonly workers: ChildProcess[] = [];
  private seq = 0;
  private readonly pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();

  constructor(n: number) {
    for (let i = 0; i < n; i++) {
      const w = fork(LOADGEN_JS, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      w.on('message', (msg: { id: number; error?: string }) => {
        const p = this.pending.get(msg.id);
        if (!p) return;
        this.pending.delete(msg.id);
        if (msg.error) p.reject(new Error(msg.error));
        else p.resolve(msg);
      });
      this.workers.push(w);
    }
  }

  get pids(): number[] {
    return this.workers.map((w) => w.pid!);
  }

  private ask<T>(w: ChildProcess, cmd: LoadCommand): Promise<T> {
    const id = ++this.seq;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      w.send({ ...cmd, id });
    });
  }

  /** Splits `clients` over the workers; returns the tool name the first worker resolved. */
  async connect(cmd: Extract<LoadCommand, { cmd: 'connect' }>): Promise<{ tool: string; tools: number }> {
    const share = (i: number) => Math.floor(cmd.clients / this.workers.length) + (i < cmd.clients % this.workers.length ? 1 : 0);
    const first = await this.ask<{ tool: string; tools: number }>(this.workers[0], { ...cmd, clients: share(0) });
    await Promise.all(
      this.workers
        .slice(1)
        .map((w, i) => (share(i + 1) > 0 ? this.ask(w, { ...cmd, clients: share(i + 1), tool: first.tool, toolPattern: undefined }) : Promise.resolve())),
    );
    return first;
  }

  /** `rate`: calls per second offered by all workers together (paced); absent: as fast as the clients go. */
  async run(seconds: number, record: boolean, method: LoadMethod = 'call', rate?: number): Promise<RunResult> {
    const share = rate === undefined ? undefined : rate / this.workers.length;
    const parts = await Promise.all(this.workers.map((w) => this.ask<{ result: RunResult }>(w, { cmd: 'run', seconds, record, method, rate: share })));
    const results = parts.map((p) => p.result);
    return {
      calls: results.reduce((a, r) => a + r.calls, 0),
      errors: results.reduce((a, r) => a + r.errors, 0),
      firstError: results.find((r) => r.firstError)?.firstError,
      latencies: results.flatMap((r) => r.latencies),
      cpuMicros: results.reduce((a, r) => a + r.cpuMicros, 0),
      wallMs: Math.max(...results.map((r) => r.wallMs)),
    };
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => this.ask(w, { cmd: 'close' })));
  }

  stop(): void {
    for (const w of this.workers) w.kill('SIGKILL');
  }
}

// ---------------------------------------------------------------- phases

export interface Row {
  target: string;
  clients: number;
  calls: number;
  errors: number;
  calls_per_s: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  /** CPU time of the measured server process (gateway / mcp-hub / backend when direct) per completed call. */
  server_cpu_us_per_call: number | null;
  /** The kernel's part of server_cpu_us_per_call (system time). */
  server_sys_us_per_call: number | null;
  /** Its CPU use during the phase, in cores. */
  server_cores: number | null;
  /** Times its main thread slept and was woken up (voluntary context switches), per call: event-loop wake-ups. */
  server_wakeups_per_call: number | null;
  backend_cpu_us_per_call: number | null;
  loadgen_cpu_us_per_call: number;
  loadgen_cores: number;
  /** Resident set size of the measured server process(es) right after the phase, MB. */
  server_rss_mb: number | null;
  /** The machine's 1-minute load average at the end of the phase (2 shared cores: above 2, others compete). */
  loadavg: number;
  first_error?: string;
}

export interface Target {
  name: string;
  transport: 'streamable-http' | 'sse' | 'stdio' | 'raw-http';
  url: string;
  tool?: string;
  toolPattern?: string;
  command?: { command: string; args: string[] };
  /** Process whose CPU is charged per call (gateway / hub / direct backend). */
  serverPid?: () => number[];
  backendPid?: () => number[];
  /** How each call is made (default `call`; `calltool` = SDK `Client.callTool()`, after `listTools()`). */
  method?: LoadMethod;
  /** Sent with every request of its clients (credentials). */
  headers?: Record<string, string>;
  /** Clients of the SDK's v2 line, negotiating so (default: the 1.x client, 2025-11-25 sessions). */
  v2?: V2Negotiation;
}

const sumOf = (read: (pid: number) => number) => (pids: number[]) =>
  pids.reduce((a, pid) => {
    try {
      return a + read(pid);
    } catch {
      return a; // gone
    }
  }, 0);
export const sumCpu = sumOf(cpuMicros);
const sumSystemCpu = sumOf(systemCpuMicros);
const sumWakeups = sumOf(mainThreadWakeups);
const sumRss = sumOf(rssBytes);

/** One measured phase; `seconds` for scripts that take their own phase length (SECONDS is read once, at import). */
export async function loadPhase(
  lg: LoadGen,
  t: Target,
  clients: number,
  method: LoadMethod = t.method ?? 'call',
  seconds = SECONDS,
  /** Offered calls per second (paced), for comparing callers at one throughput; absent: closed loop. */
  rate?: number,
): Promise<Row> {
  await lg.connect({
    cmd: 'connect',
    url: t.url,
    transport: t.transport,
    clients,
    tool: t.tool,
    toolPattern: t.toolPattern,
    command: t.command,
    listTools: method === 'calltool',
    headers: t.headers,
    v2: t.v2,
  });
  try {
    if (WARMUP > 0) await lg.run(WARMUP, false, method, rate);
    const serverPids = t.serverPid?.() ?? [];
    const backendPids = t.backendPid?.() ?? [];
    const s0 = sumCpu(serverPids);
    const y0 = sumSystemCpu(serverPids);
    const b0 = sumCpu(backendPids);
    const k0 = sumWakeups(serverPids);
    const w0 = performance.now();
    const r = await lg.run(seconds, true, method, rate);
    const wall = performance.now() - w0;
    const s1 = sumCpu(serverPids);
    const y1 = sumSystemCpu(serverPids);
    const b1 = sumCpu(backendPids);
    const k1 = sumWakeups(serverPids);
    const rss = sumRss(serverPids);
    const lat = r.latencies.sort((a, b) => a - b);
    const per = (us: number) => (r.calls > 0 ? us / r.calls : NaN);
    return {
      target: t.name,
      clients,
      calls: r.calls,
      errors: r.errors,
      calls_per_s: r.calls / (r.wallMs / 1000),
      p50_ms: pct(lat, 50),
      p90_ms: pct(lat, 90),
      p99_ms: pct(lat, 99),
      server_cpu_us_per_call: serverPids.length ? per(s1 - s0) : null,
      server_sys_us_per_call: serverPids.length ? per(y1 - y0) : null,
      server_cores: serverPids.length ? (s1 - s0) / (wall * 1000) : null,
      server_wakeups_per_call: serverPids.length ? per(k1 - k0) : null,
      backend_cpu_us_per_call: backendPids.length ? per(b1 - b0) : null,
      loadgen_cpu_us_per_call: per(r.cpuMicros),
      loadgen_cores: r.cpuMicros / (r.wallMs * 1000),
      server_rss_mb: serverPids.length ? rss / 2 ** 20 : null,
      loadavg: loadAverage()[0] ?? NaN,
      ...(r.firstError ? { first_error: r.firstError } : {}),
    };
  } finally {
    await lg.close();
  }
}
