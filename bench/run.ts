/**
 * `npm run bench`: the proxy-path benchmark. Starts everything itself on
 * loopback (bench backends, the gateway as its own process, mcp-hub, load
 * generator workers), prints tables and writes bench/results/<timestamp>.json.
 * See docs/performance.md for the design, the targets and the results.
 *
 * Environment (all optional):
 *   BENCH_QUICK     1 for a quick look (~3 min): short phases, sections scenarios, stores, sessions, startup, optimizer, auth, one start-up repeat
 *   BENCH_SECONDS   measured seconds per load phase (default 3; quick 1.5)
 *   BENCH_WARMUP    unmeasured warm-up seconds before each phase (default 1; quick 0.5)
 *   BENCH_CLIENTS   client counts of the overhead section (default 1,16)
 *   BENCH_WORKERS   load generator processes (default 1)
 *   BENCH_ONLY      comma list of sections: scenarios, stores, overhead, sessions, tools, startup, optimizer, plugins, auth (default all; quick: scenarios, stores, sessions, startup, optimizer, auth)
 *   BENCH_STORE_ROUNDS  alternating rounds of the session-store comparison (default 6; quick 2)
 *   BENCH_PLUGIN_ROUNDS   rounds of the plugins section (default 3; quick 1)
 *   BENCH_PLUGIN_CLIENTS  client counts of the plugins section (default 1,16)
 *   BENCH_AUTH_ROUNDS  rounds of the auth section, each a fresh pair of gateways measured A-B-B-A, and the floor proxy (default 6; quick 2)
 *   BENCH_AUTH_AA   1: the auth section's second gateway without auth too (A/A: what the method gives for no difference)
 *   BENCH_SCENARIOS comma list of scenario name prefixes (default all; see bench/scenarios.ts)
 *   BENCH_SCENARIO_CLIENTS  client counts of the scenarios (default 1,16)
 *   BENCH_SCENARIO_ROUNDS   rounds of every scenario phase (default 1): rows and goals are the medians of the rounds,
 *                   and with BENCH_BASELINE after ÷ before is paired round by round
 *   BENCH_BASELINE  another build's dist/cli/gateway.js: every gateway scenario also runs on it ("before")
 *   BENCH_HUB       0 to leave mcp-hub out
 *   BENCH_TARGETS   comma list of overhead targets (default DEFAULT_TARGETS below; `all` for every one)
 *   BENCH_AUDIT     0 to run the gateway with its audit trail off (default on, as configured by default)
 *   BENCH_GATEWAY   another build's dist/cli/gateway.js to measure instead of this one (before/after)
 *   BENCH_IDLE_SESSIONS  sessions of the memory test (default 1000)
 *   BENCH_ABANDONED_SESSIONS  initialize-then-abandon sessions (default 10000; quick 2000)
 *   BENCH_STARTUP_REPEAT  start-up measurements per configuration (default 3, median reported)
 *   BENCH_DEBUG     1 to echo child stderr
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { CLK_TCK, killAll, loadAverage, runMain, sleep, type Proc } from './proc.js';
import { f, table } from './format.js';
import { abandonSessions, BASE_TOLERANCE_MB, type AbandonResult } from './abandoned-sessions.js';
import { buildTable } from './scenario-rounds.js';
import { SCENARIO_CLIENTS, SCENARIO_ROUNDS, goalTable, scenarioTable, scenarios, type ScenarioResults } from './scenarios.js';
import { revisionTable } from './revisions.js';
import { STORE_TARGET_RATIO, compareStores, storeTable, type StoreComparison } from './stores.js';
import { authCost, authSummary, authTable, authTarget, type AuthCostResults } from './auth-cost.js';
import {
  AUDIT,
  FIXTURE_JS,
  GC_ON_SIGNAL_ARGS,
  LoadGen,
  collectGarbage,
  NODE,
  QUICK,
  ROOT,
  SECONDS,
  WARMUP,
  backendCmd,
  childPids,
  gatewayConnected,
  loadPhase,
  rssBytes,
  startGateway,
  startHttpBackend,
  startHub,
  removeWork,
  type Row,
  type Target,
} from './harness.js';
import { median } from './stats.js';
import { otherCallsTable, pluginTable, pluginTargets, pluginsSection, type PluginResults } from './plugins.js';
import { optimizerSection, type OptimizerResults } from './optimizer/section.js';

const env = process.env;
const CLIENT_COUNTS = (env.BENCH_CLIENTS ?? '1,16').split(',').map(Number);
const WORKERS = Math.max(1, Number(env.BENCH_WORKERS ?? 1));
const SECTIONS = new Set(
  (
    env.BENCH_ONLY ?? (QUICK ? 'scenarios,stores,sessions,startup,optimizer,auth' : 'scenarios,stores,overhead,sessions,tools,startup,optimizer,plugins,auth')
  ).split(','),
);
const STARTUP_REPEAT = Number(env.BENCH_STARTUP_REPEAT ?? (QUICK ? 1 : 3));
const IDLE_SESSIONS = Number(env.BENCH_IDLE_SESSIONS ?? 1000);
const ABANDONED_SESSIONS = Number(env.BENCH_ABANDONED_SESSIONS ?? (QUICK ? 2000 : 10_000));
/** session_ttl of the abandoned-sessions gateway, seconds. */
const ABANDON_TTL_S = 5;
const SCALE_BACKENDS = 20;
/** mcp-hub runs beside the gateway unless BENCH_HUB=0 or BENCH_TARGETS names no mcp-hub target. */
const wantHub = () => env.BENCH_HUB !== '0' && (!env.BENCH_TARGETS || env.BENCH_TARGETS === 'all' || env.BENCH_TARGETS.includes('mcp-hub'));
const TOOLS_PER_BACKEND = 50;

// ---------------------------------------------------------------- output

function overheadTable(rows: Row[]): string {
  return table(
    ['target', 'clients', 'calls/s', 'p50 ms', 'p90 ms', 'p99 ms', 'srv µs/call', 'srv cores', 'backend µs/call', 'loadgen µs/call', 'loadgen cores', 'errors'],
    rows.map((r) => [
      r.target,
      String(r.clients),
      f(r.calls_per_s),
      f(r.p50_ms, 3),
      f(r.p90_ms, 3),
      f(r.p99_ms, 3),
      f(r.server_cpu_us_per_call),
      f(r.server_cores, 2),
      f(r.backend_cpu_us_per_call),
      f(r.loadgen_cpu_us_per_call),
      f(r.loadgen_cores, 2),
      String(r.errors),
    ]),
  );
}

// ---------------------------------------------------------------- sections

interface Results {
  started_at: string;
  optimizer?: OptimizerResults;
  machine: { cpus: number; model: string; node: string; clk_tck: number; loadavg_before: number[]; loadavg_after?: number[] };
  settings: Record<string, unknown>;
  scenarios?: ScenarioResults;
  stores?: StoreComparison[];
  overhead: Row[];
  sessions?: Record<string, unknown>;
  tools_list?: { rows: Row[] };
  startup?: Record<string, unknown>;
  plugins?: PluginResults;
  auth?: AuthCostResults;
  targets?: Array<{ target: string; limit: string; measured: string; met: boolean | null }>;
  duration_s?: number;
}

const TARGETS = [
  'direct-http',
  'direct-http-rawclient',
  'direct-stdio',
  'sdk-server-direct',
  'gateway-http',
  'gateway-stdio',
  'gateway-http-noaudit',
  'gateway-stdio-noaudit',
  'gateway-http-rawclient',
  'gateway-stdio-rawclient',
  'mcp-hub-http',
  'mcp-hub-stdio',
];

/** The cheap-backend rows kept in a default run (the raw-client and SDK-server rows on request). */
const DEFAULT_TARGETS = [
  'direct-http',
  'direct-stdio',
  'gateway-http',
  'gateway-stdio',
  'gateway-http-noaudit',
  'gateway-stdio-noaudit',
  'mcp-hub-http',
  'mcp-hub-stdio',
];

async function overhead(results: Results, lg: LoadGen): Promise<void> {
  const wanted = new Set(env.BENCH_TARGETS === 'all' ? TARGETS : env.BENCH_TARGETS ? env.BENCH_TARGETS.split(',') : DEFAULT_TARGETS);
  const backend = await startHttpBackend('h', 'bench');
  const sdk = wanted.has('sdk-server-direct') ? await startHttpBackend('sdk', 'fixture') : undefined;
  const gw = await startGateway('overhead', {
    h: { type: 'streamable-http', url: backend.url },
    s: { type: 'stdio', ...backendCmd(['--name', 's']) },
  });
  // The same gateway with its audit trail off: what the audit step costs per call.
  const gwNoAudit =
    wanted.has('gateway-http-noaudit') || wanted.has('gateway-stdio-noaudit')
      ? await startGateway(
          'overhead-noaudit',
          { h: { type: 'streamable-http', url: backend.url }, s: { type: 'stdio', ...backendCmd(['--name', 's']) } },
          { audit: { enabled: false } },
        )
      : undefined;
  const needHub = wanted.has('mcp-hub-http') || wanted.has('mcp-hub-stdio');
  const hub = needHub
    ? await startHub('overhead', {
        h: { url: backend.url },
        s: backendCmd(['--name', 's']),
      })
    : undefined;
  const gwBackendPids = () => childPids(gw.proc.pid);
  const hubBackendPids = () => (hub ? childPids(hub.proc.pid) : []);
  const all: Target[] = [
    { name: 'direct-http', transport: 'streamable-http', url: backend.url, tool: 'echo', serverPid: () => [backend.proc.pid] },
    { name: 'direct-http-rawclient', transport: 'raw-http', url: backend.url, tool: 'echo', serverPid: () => [backend.proc.pid] },
    // Each client spawns its own stdio backend; the backends' CPU is charged as "server".
    { name: 'direct-stdio', transport: 'stdio', url: '', tool: 'echo', command: backendCmd([]), serverPid: () => lg.pids.flatMap(childPids) },
    ...(sdk ? [{ name: 'sdk-server-direct', transport: 'streamable-http' as const, url: sdk.url, tool: 'echo', serverPid: () => [sdk.proc.pid] }] : []),
    { name: 'gateway-http', transport: 'streamable-http', url: gw.url, tool: 'h_echo', serverPid: () => [gw.proc.pid], backendPid: () => [backend.proc.pid] },
    { name: 'gateway-stdio', transport: 'streamable-http', url: gw.url, tool: 's_echo', serverPid: () => [gw.proc.pid], backendPid: gwBackendPids },
    // The same gateway driven by bare HTTP requests instead of SDK clients (see loadgen.ts, raw-http).
    {
      name: 'gateway-http-rawclient',
      transport: 'raw-http',
      url: gw.url,
      tool: 'h_echo',
      serverPid: () => [gw.proc.pid],
      backendPid: () => [backend.proc.pid],
    },
    { name: 'gateway-stdio-rawclient', transport: 'raw-http', url: gw.url, tool: 's_echo', serverPid: () => [gw.proc.pid], backendPid: gwBackendPids },
    ...(gwNoAudit
      ? [
          {
            name: 'gateway-http-noaudit',
            transport: 'streamable-http' as const,
            url: gwNoAudit.url,
            tool: 'h_echo',
            serverPid: () => [gwNoAudit.proc.pid],
            backendPid: () => [backend.proc.pid],
          },
          {
            name: 'gateway-stdio-noaudit',
            transport: 'streamable-http' as const,
            url: gwNoAudit.url,
            tool: 's_echo',
            serverPid: () => [gwNoAudit.proc.pid],
            backendPid: () => childPids(gwNoAudit.proc.pid),
          },
        ]
      : []),
    ...(hub
      ? [
          {
            name: 'mcp-hub-http',
            transport: 'sse' as const,
            url: hub.url,
            toolPattern: '^h[^a-z0-9]*echo$',
            serverPid: () => [hub.proc.pid],
            backendPid: () => [backend.proc.pid],
          },
          {
            name: 'mcp-hub-stdio',
            transport: 'sse' as const,
            url: hub.url,
            toolPattern: '^s[^a-z0-9]*echo$',
            serverPid: () => [hub.proc.pid],
            backendPid: hubBackendPids,
          },
        ]
      : []),
  ];
  const targets = all.filter((t) => wanted.has(t.name));
  try {
    for (const clients of CLIENT_COUNTS) {
      for (const t of targets) {
        const row = await loadPhase(lg, t, clients);
        results.overhead.push(row);
        console.log(overheadTable([row]).split('\n')[2]);
      }
    }
  } finally {
    await Promise.all([gw.proc.stop(), gwNoAudit?.proc.stop(), hub?.proc.stop(), backend.proc.stop(), sdk?.proc.stop()]);
  }
}

async function sessions(results: Results, lg: LoadGen): Promise<void> {
  const backend = await startHttpBackend('idle', 'bench');
  const out: Record<string, unknown> = { sessions: IDLE_SESSIONS };
  /** `gc`: the process, when it runs with GC_ON_SIGNAL_ARGS: a full GC before each reading. */
  const measure = async (
    label: string,
    url: string,
    transport: 'streamable-http' | 'sse',
    pid: number,
    tool: string | undefined,
    toolPattern?: string,
    gc?: Proc,
  ) => {
    // Warm the process up with one session and a few calls, then let it settle.
    await lg.connect({ cmd: 'connect', url, transport, clients: 1, tool, toolPattern });
    await lg.run(1, false);
    await lg.close();
    await sleep(2000);
    const before = gc ? (await collectGarbage(gc)).rssMb * 2 ** 20 : rssBytes(pid);
    const t0 = performance.now();
    await lg.connect({ cmd: 'connect', url, transport, clients: IDLE_SESSIONS, concurrency: 50 });
    const openMs = performance.now() - t0;
    await sleep(3000);
    const after = gc ? (await collectGarbage(gc)).rssMb * 2 ** 20 : rssBytes(pid);
    await lg.close();
    out[label] = {
      rss_before_mb: before / 2 ** 20,
      rss_after_mb: after / 2 ** 20,
      delta_mb: (after - before) / 2 ** 20,
      kb_per_session: (after - before) / 1024 / IDLE_SESSIONS,
      open_s: openMs / 1000,
      full_gc_before_readings: gc !== undefined,
    };
  };
  try {
    const gw = await startGateway('sessions', { h: { type: 'streamable-http', url: backend.url } }, {}, GC_ON_SIGNAL_ARGS);
    try {
      await measure('gateway', gw.url, 'streamable-http', gw.proc.pid, 'h_echo', undefined, gw.proc);
    } finally {
      await gw.proc.stop();
    }
    // Sessions opened and never closed: gone after the TTL, memory back to the base.
    const gwTtl = await startGateway(
      'sessions-abandoned',
      { h: { type: 'streamable-http', url: backend.url } },
      {
        server: { host: '127.0.0.1', port: 0, session_ttl: ABANDON_TTL_S, max_sessions: ABANDONED_SESSIONS + 1000 },
      },
      GC_ON_SIGNAL_ARGS,
    );
    try {
      out.abandoned = await abandonSessions(gwTtl.url, gwTtl.base, gwTtl.proc, ABANDONED_SESSIONS, ABANDON_TTL_S);
    } finally {
      await gwTtl.proc.stop();
    }
    if (wantHub()) {
      const hub = await startHub('sessions', { h: { url: backend.url } });
      try {
        await measure('mcp-hub', hub.url, 'sse', hub.proc.pid, undefined, '^h[^a-z0-9]*echo$');
      } finally {
        await hub.proc.stop();
      }
    }
  } finally {
    await backend.proc.stop();
  }
  results.sessions = out;
}

async function toolsList(results: Results, lg: LoadGen): Promise<void> {
  const rows: Row[] = [];
  const backends: Record<string, unknown> = {};
  const hubServers: Record<string, unknown> = {};
  for (let i = 0; i < SCALE_BACKENDS; i++) {
    const cmd = backendCmd(['--name', `b${i}`, '--tool-count', String(TOOLS_PER_BACKEND - 1)]); // echo + 49 = 50 tools each
    backends[`b${i}`] = { type: 'stdio', ...cmd };
    hubServers[`b${i}`] = cmd;
  }
  const one = await startHttpBackend('big', 'bench', ['--tool-count', String(SCALE_BACKENDS * TOOLS_PER_BACKEND - 1)]);
  const gw = await startGateway('tools', backends);
  const hub = wantHub() ? await startHub('tools', hubServers) : undefined;
  try {
    const targets: Target[] = [
      { name: 'direct-1000-tools', transport: 'streamable-http', url: one.url, tool: 'echo', serverPid: () => [one.proc.pid] },
      { name: 'gateway-20x50', transport: 'streamable-http', url: gw.url, tool: 'b0_echo', serverPid: () => [gw.proc.pid] },
      ...(hub ? [{ name: 'mcp-hub-20x50', transport: 'sse' as const, url: hub.url, toolPattern: '^b0[^a-z0-9]*echo$', serverPid: () => [hub.proc.pid] }] : []),
    ];
    for (const clients of [1, 16]) {
      for (const t of targets) {
        const row = await loadPhase(lg, t, clients, 'list');
        rows.push(row);
        console.log(overheadTable([row]).split('\n')[2]);
      }
    }
  } finally {
    await Promise.all([gw.proc.stop(), hub?.proc.stop(), one.proc.stop()]);
  }
  results.tools_list = { rows };
}

async function startup(results: Results): Promise<void> {
  const out: Record<string, unknown> = { repeat: STARTUP_REPEAT };
  const variants: Array<{ label: string; cmd: (i: number) => { command: string; args: string[] } }> = [
    { label: 'bench-backend', cmd: (i) => backendCmd(['--name', `b${i}`]) },
    { label: 'sdk-fixture', cmd: (i) => ({ command: NODE, args: [FIXTURE_JS, '--transport', 'stdio', '--name', `f${i}`] }) },
  ];
  const gwZero: number[] = [];
  for (let r = 0; r < STARTUP_REPEAT; r++) {
    const gw = await startGateway(`startup-0-${r}`, {});
    gwZero.push(gw.startMs);
    await gw.proc.stop();
  }
  out.gateway_no_backends_ms = median(gwZero);
  for (const v of variants) {
    const res: Record<string, unknown> = {};
    for (const n of [1, SCALE_BACKENDS]) {
      const times: number[] = [];
      const hubTimes: number[] = [];
      /** null: the health endpoint did not say (not counted as a failure). */
      let verified: boolean | null = null;
      for (let r = 0; r < STARTUP_REPEAT; r++) {
        const backends: Record<string, unknown> = {};
        const servers: Record<string, unknown> = {};
        for (let i = 0; i < n; i++) {
          backends[`b${i}`] = { type: 'stdio', ...v.cmd(i) };
          servers[`b${i}`] = v.cmd(i);
        }
        await sleep(500); // let the previous run's processes go
        const gw = await startGateway(`startup-${v.label}-${n}-${r}`, backends);
        times.push(gw.startMs);
        const connected = await gatewayConnected(gw.base);
        if (connected !== undefined) verified = (verified ?? true) && connected === n;
        await gw.proc.stop();
        if (wantHub()) {
          await sleep(500);
          const hub = await startHub(`startup-${v.label}-${n}-${r}`, servers);
          hubTimes.push(hub.startMs);
          await hub.proc.stop();
        }
      }
      res[`gateway_${n}_ms`] = median(times);
      res[`gateway_${n}_all_ms`] = times.map((t) => Math.round(t));
      res[`gateway_${n}_all_ready_verified`] = verified;
      if (hubTimes.length) res[`mcp_hub_${n}_ms`] = median(hubTimes);
    }
    const g1 = res[`gateway_1_ms`] as number;
    const g20 = res[`gateway_${SCALE_BACKENDS}_ms`] as number;
    const base = out.gateway_no_backends_ms as number;
    res.ratio = g20 / g1;
    res.ratio_backend_part = (g20 - base) / (g1 - base);
    out[v.label] = res;
    console.log(
      `${v.label}: gateway alone ${f(base)} ms, 1 backend ${f(g1)} ms, ${SCALE_BACKENDS} backends ${f(g20)} ms (${f(res.ratio as number, 2)}x; backend part ${f(res.ratio_backend_part as number, 2)}x)` +
        (res.mcp_hub_1_ms !== undefined
          ? `; mcp-hub 1: ${f(res.mcp_hub_1_ms as number)} ms, ${SCALE_BACKENDS}: ${f(res[`mcp_hub_${SCALE_BACKENDS}_ms`] as number)} ms`
          : ''),
    );
  }
  results.startup = out;
}

function evaluate(results: Results): void {
  const row = (target: string, clients: number) => results.overhead.find((r) => r.target === target && r.clients === clients);
  const t: NonNullable<Results['targets']> = [];
  for (const kind of ['http', 'stdio', 'http-noaudit', 'stdio-noaudit', 'http-rawclient', 'stdio-rawclient']) {
    for (const clients of CLIENT_COUNTS) {
      const g = row(`gateway-${kind}`, clients);
      if (g)
        t.push({
          target: `gateway CPU per proxied call (${kind}, ${clients} clients)`,
          limit: '<= 250 µs',
          measured: `${f(g.server_cpu_us_per_call)} µs`,
          met: (g.server_cpu_us_per_call ?? Infinity) <= 250,
        });
    }
  }
  for (const kind of ['http', 'stdio', 'http-rawclient']) {
    const g = row(`gateway-${kind}`, 1);
    const d = row(`direct-${kind}`, 1);
    const note = kind === 'stdio' ? ' (direct has no HTTP hop)' : '';
    if (g && d)
      t.push({
        target: `p50 added over direct, 1 client (${kind})${note}`,
        limit: '<= 0.300 ms',
        measured: `${f(g.p50_ms - d.p50_ms, 3)} ms`,
        met: g.p50_ms - d.p50_ms <= 0.3,
      });
  }
  for (const kind of ['http', 'stdio', 'http-noaudit', 'stdio-noaudit']) {
    const g = row(`gateway-${kind}`, 16);
    const d = row(`direct-${kind.replace('-noaudit', '')}`, 16);
    if (g && d)
      t.push({
        target: `calls/s vs direct, 16 clients (${kind})`,
        limit: '>= 90%',
        measured: `${f((100 * g.calls_per_s) / d.calls_per_s)}%`,
        met: g.calls_per_s / d.calls_per_s >= 0.9,
      });
  }
  for (const c of results.stores ?? []) {
    t.push({
      target: `Redis store CPU per call vs memory store (sdk-${c.backend}, ${c.clients} clients)`,
      limit: `<= ${STORE_TARGET_RATIO}x`,
      measured: `${f(c.redis_us)} vs ${f(c.memory_us)} µs (${f(c.ratio, 3)}x)`,
      met: c.ratio <= STORE_TARGET_RATIO,
    });
  }
  const s = results.sessions?.gateway as { delta_mb: number } | undefined;
  if (s) t.push({ target: `RSS of ${IDLE_SESSIONS} idle sessions`, limit: '<= 50 MB', measured: `${f(s.delta_mb, 1)} MB`, met: s.delta_mb <= 50 });
  const a = results.sessions?.abandoned as AbandonResult | undefined;
  if (a)
    t.push({
      target: `${a.sessions} initialize-then-abandon sessions, after the TTL (${a.ttl_s} s)`,
      limit: `none left, heap back to base (+${BASE_TOLERANCE_MB} MB)`,
      measured: `heap ${f(a.heap_base_mb)} → ${f(a.heap_after_ttl_mb)} MB; RSS ${f(a.rss_base_mb)}, peak ${f(a.rss_peak_mb)}, after ${f(a.rss_after_ttl_mb)} MB; ${a.sessions_left ?? '?'} left`,
      met: a.returned_to_base,
    });
  for (const label of ['bench-backend', 'sdk-fixture']) {
    const st = results.startup?.[label] as { ratio: number; ratio_backend_part: number } | undefined;
    if (st)
      t.push({
        target: `start to all-Ready, ${SCALE_BACKENDS} vs 1 stdio backends (${label})`,
        limit: '<= 2.0x',
        measured: `${f(st.ratio, 2)}x (backend part ${f(st.ratio_backend_part, 2)}x)`,
        met: st.ratio <= 2,
      });
  }
  for (const c of results.scenarios?.revisions ?? []) {
    t.push({
      target: `gateway CPU per call, 2026-07-28 vs 2025-11-25 (${c.scenario}, ${c.clients} clients)`,
      limit: "<= 1.00x of the 1.x client's",
      measured: `${f(c.modern_cpu_us)} vs ${f(c.sdk1_cpu_us)} µs (${f(c.modern_over_sdk1, 2)}x; v2 client at 2025-11-25: ${f(c.v2_legacy_cpu_us)} µs)`,
      met: c.modern_over_sdk1 === null ? null : c.modern_over_sdk1 <= 1,
    });
  }
  if (results.plugins) t.push(...pluginTargets(results.plugins));
  if (results.auth) t.push(authTarget(results.auth));
  results.targets = t;
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const t0 = performance.now();
  const results: Results = {
    started_at: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model ?? '', node: process.version, clk_tck: CLK_TCK, loadavg_before: loadAverage() },
    settings: {
      seconds: SECONDS,
      warmup: WARMUP,
      clients: CLIENT_COUNTS,
      workers: WORKERS,
      audit: AUDIT,
      idle_sessions: IDLE_SESSIONS,
      sections: [...SECTIONS],
    },
    overhead: [],
  };
  console.log(
    `bench: ${SECONDS}s per phase (+${WARMUP}s warm-up), ${WORKERS} load generator process(es), ${cpus().length} CPUs, load average ${loadAverage().join(' ')}`,
  );
  const lg = new LoadGen(WORKERS);
  try {
    if (SECTIONS.has('scenarios')) {
      console.log(
        `\n# Scenarios: SDK Client.callTool -> (gateway | mcp-hub | nothing) -> SDK McpServer backend, ${SCENARIO_CLIENTS.join(' and ')} clients${SCENARIO_ROUNDS > 1 ? `, ${SCENARIO_ROUNDS} rounds` : ''}`,
      );
      results.scenarios = await scenarios(lg);
    }
    if (SECTIONS.has('stores')) {
      console.log('\n# Session store: the same gateway with its sessions in memory and in Redis, alternating phases');
      results.stores = await compareStores(lg);
    }
    if (SECTIONS.has('overhead')) {
      console.log('\n# Overhead: echo tools/call, closed loop, each client its own session');
      console.log(overheadTable([]).split('\n').slice(0, 2).join('\n'));
      await overhead(results, lg);
    }
    if (SECTIONS.has('sessions')) {
      console.log(`\n# ${IDLE_SESSIONS} idle client sessions`);
      await sessions(results, lg);
      console.log(JSON.stringify(results.sessions, null, 2));
    }
    if (SECTIONS.has('tools')) {
      console.log(`\n# tools/list, ${SCALE_BACKENDS} stdio backends x ${TOOLS_PER_BACKEND} tools`);
      console.log(overheadTable([]).split('\n').slice(0, 2).join('\n'));
      await toolsList(results, lg);
    }
    if (SECTIONS.has('startup')) {
      console.log(`\n# Start to all-Ready`);
      await startup(results);
    }
    if (SECTIONS.has('optimizer')) {
      console.log('\n# Optimizer: tools/list tokens, find_tool retrieval quality, search latency');
      results.optimizer = await optimizerSection(ROOT);
    }
    if (SECTIONS.has('plugins')) {
      console.log('\n# Plugins: the bench call (SDK callTool, /mcp → sdk-http) through each built-in plugin');
      results.plugins = await pluginsSection(lg, env.BENCH_BASELINE || undefined);
    }
    if (SECTIONS.has('auth')) {
      console.log('\n# Client authentication and policies: the same gateway without, and with local tokens and ten policies');
      results.auth = await authCost(lg);
      console.log(authSummary(results.auth));
    }
  } finally {
    lg.stop();
    killAll();
  }
  results.machine.loadavg_after = loadAverage();
  results.duration_s = (performance.now() - t0) / 1000;
  evaluate(results);

  if (results.scenarios) {
    const medians = SCENARIO_ROUNDS > 1 ? `, medians of ${SCENARIO_ROUNDS} rounds` : '';
    console.log(`\n# Summary: scenarios${medians}`);
    console.log(scenarioTable(results.scenarios.rows));
    console.log(`\n# Scenario goals, anchored on the floor proxy of this run (+p50 against the direct path to the same backend)${medians}`);
    console.log(goalTable(results.scenarios.goals));
    if (results.scenarios.builds.length) {
      console.log(`\n# Before and after: gateway CPU per call, after ÷ before paired round by round (before = ${results.scenarios.baseline})`);
      console.log(buildTable(results.scenarios.builds));
    }
    if (results.scenarios.revisions.length) {
      console.log('\n# Revisions: gateway CPU per call of a 2026-07-28 call against 2025-11-25 calls on the same gateway (issue 32)');
      console.log(revisionTable(results.scenarios.revisions));
    }
  }
  if (results.stores) {
    console.log('\n# Summary: session store (gateway CPU per call, medians of alternating phases; /mcp, audit on)');
    console.log(storeTable(results.stores));
  }
  if (results.overhead.length) {
    console.log('\n# Summary: overhead (bench backend)');
    console.log(overheadTable(results.overhead));
  }
  if (results.tools_list) {
    console.log('\n# Summary: tools/list');
    console.log(overheadTable(results.tools_list.rows));
  }
  if (results.plugins) {
    console.log('\n# Summary: plugins (CPU per call of the gateway or the floor, median of the rounds; the chain’s own share of the no-plugin gateway’s)');
    console.log(pluginTable(results.plugins.rows));
    console.log('\n# Summary: plugins on other calls (in-process only: the chain’s own CPU per call)');
    console.log(otherCallsTable(results.plugins.other_calls));
  }
  if (results.auth) {
    console.log('\n# Summary: client authentication and policies');
    console.log(authTable(results.auth.rows));
    console.log(authSummary(results.auth));
  }
  console.log('\n# Targets');
  console.log(
    table(
      ['target', 'limit', 'measured', 'met'],
      (results.targets ?? []).map((x) => [x.target, x.limit, x.measured, x.met === null ? '-' : x.met ? 'yes' : 'NO']),
    ),
  );
  const dir = join(ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${results.started_at.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify(results, null, 2));
  console.log(`\nload average after: ${results.machine.loadavg_after.join(' ')}; ${results.duration_s.toFixed(0)} s; results in ${file}`);
}

runMain(main, removeWork);
