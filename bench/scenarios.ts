/**
 * The bench's main section: tool calls made the way users make them (issue 17).
 *
 * An SDK `Client` (streamable HTTP; legacy SSE for the gateway's `/sse` front
 * and for mcp-hub) calls `echo` with `Client.callTool()` after `listTools()`,
 * on an SDK `McpServer` backend (the test fixture server) that answers the way
 * the SDK does by default: SSE-framed responses over streamable HTTP, or stdio.
 * Every path is measured next to the direct one (the same client straight to
 * the same backend), to the floor (bench/floor-proxy.ts: a bare node:http
 * pass-through proxy, what two loopback hops in one Node process cost at the
 * least) and to mcp-hub, at 1 and 16 clients, in one run.
 *
 * With BENCH_BASELINE=<another build's dist/cli/gateway.js>, every gateway
 * scenario also runs against that build ("before"), interleaved with this one
 * ("after") so that machine drift hits both alike.
 *
 * The gateway's `/mcp` rows come once per protocol revision (issue 32,
 * ./revisions.ts): the 1.x client's 2025-11-25 session (the unmarked rows),
 * the v2 client pinned to 2026-07-28 (`[2026-07-28]`, only on a build that
 * serves it) and the v2 client at 2025-11-25 (`[2025-11-25, v2 client]`); and
 * the v2 client straight to the backend, where it falls back to 2025-11-25.
 */
import { f, table } from './format.js';
import { compareBuilds, medianRows, type BuildComparison } from './scenario-rounds.js';
import { GATEWAY_CALLERS, SDK1, V2_DIRECT, compareRevisions, servesModern, type Caller, type RevisionComparison } from './revisions.js';
import {
  GATEWAY_JS,
  childPids,
  loadPhase,
  sdkStdioCmd,
  startFloorProxy,
  startGateway,
  startHttpBackend,
  startHub,
  type GatewayProc,
  type LoadGen,
  type Row,
  type Target,
} from './harness.js';

const env = process.env;
export const SCENARIO_CLIENTS = (env.BENCH_SCENARIO_CLIENTS ?? '1,16').split(',').map(Number);
const BASELINE_JS = env.BENCH_BASELINE || undefined;
/**
 * Rounds of every phase (BENCH_SCENARIO_ROUNDS, default 1). One closed-loop
 * phase of 3 s wanders 20–30 % from run to run, more than the few percent a
 * before/after question is about; with several rounds each row is the median
 * of its phases, and the goal table is judged on those medians.
 */
export const SCENARIO_ROUNDS = Math.max(1, Number(env.BENCH_SCENARIO_ROUNDS ?? 1));

/**
 * The goals, anchored on the floor of the same run (issue 28): what two loopback
 * hops through a bare node:http proxy cost on this machine today, so that the
 * verdict does not move with the machine. Judged per gateway scenario.
 */
export const GOALS = {
  /** Gateway CPU per call at most this multiple of the floor's, at 1 and at 16 clients. */
  cpuTimesFloor: 1.5,
  /** Added p50 at 1 client (vs the direct path) at most the floor's added p50 plus this. */
  addedP50OverFloorMs: 0.1,
  /** Calls/s at 16 clients at least this share of the floor's. */
  throughputShareOfFloor: 0.95,
} as const;

export type Build = 'after' | 'before';
type BackendKind = 'http' | 'stdio';

export interface ScenarioRow extends Row {
  scenario: string;
  kind: 'direct' | 'floor' | 'gateway' | 'mcp-hub';
  backend: BackendKind;
  build?: Build;
  /** The client that made the calls and the revision it spoke. */
  caller: Caller;
}

interface Scenario {
  name: string;
  kind: ScenarioRow['kind'];
  backend: BackendKind;
  build?: Build;
  caller: Caller;
  target: Target;
}

export interface ScenarioGoal {
  scenario: string;
  build?: Build;
  added_p50_ms: number | null;
  /** The floor's added p50 at 1 client, the anchor of the latency goal. */
  floor_added_p50_ms: number | null;
  cpu_us_1: number | null;
  cpu_us_16: number | null;
  /** CPU per call as a multiple of the floor's, at 1 and 16 clients. */
  cpu_x_floor_1: number | null;
  cpu_x_floor_16: number | null;
  /** Calls/s at 16 clients as a share of the floor's. */
  share_of_floor_16: number | null;
  rss_mb: number | null;
  met: { latency: boolean | null; cpu: boolean | null; throughput: boolean | null };
}

export interface ScenarioResults {
  /** One row per scenario, build and client count: the median of its rounds' phases. */
  rows: ScenarioRow[];
  /** Every measured phase, in the order they ran. */
  phases: ScenarioRow[];
  goals: ScenarioGoal[];
  /** Gateway CPU per call of each 2026-07-28 row against the 2025-11-25 rows of the same gateway. */
  revisions: RevisionComparison[];
  /** After ÷ before per gateway scenario and client count, paired by round (with BENCH_BASELINE). */
  builds: BuildComparison[];
  baseline?: string;
}

export async function scenarios(lg: LoadGen): Promise<ScenarioResults> {
  const wanted = env.BENCH_SCENARIOS ? new Set(env.BENCH_SCENARIOS.split(',')) : undefined;
  const want = (name: string) => !wanted || [...wanted].some((w) => name.startsWith(w));
  const sdk = await startHttpBackend('sdk', 'sdk');
  const gatewayBackends = { h: { type: 'streamable-http', url: sdk.url }, s: { type: 'stdio', ...sdkStdioCmd('s') } };
  const builds: Array<{ build: Build; js: string }> = [
    ...(BASELINE_JS ? [{ build: 'before' as const, js: BASELINE_JS }] : []),
    { build: 'after', js: GATEWAY_JS },
  ];
  const gateways: GatewayProc[] = [];
  const list: Scenario[] = [];
  const direct = (backend: BackendKind, caller: Caller): Scenario => ({
    name: named(`direct → sdk-${backend}`, caller),
    kind: 'direct',
    backend,
    caller,
    target:
      backend === 'http'
        ? {
            name: `direct-sdk-http${caller.v2 ? '-v2' : ''}`,
            transport: 'streamable-http',
            url: sdk.url,
            tool: 'echo',
            serverPid: () => [sdk.proc.pid],
            method: 'calltool',
            v2: caller.v2,
          }
        : // Each client spawns its own backend process; their CPU is charged as "server".
          {
            name: `direct-sdk-stdio${caller.v2 ? '-v2' : ''}`,
            transport: 'stdio',
            url: '',
            tool: 'echo',
            command: sdkStdioCmd('direct'),
            serverPid: () => lg.pids.flatMap(childPids),
            method: 'calltool',
            v2: caller.v2,
          },
  });
  try {
    for (const caller of [SDK1, V2_DIRECT]) {
      for (const backend of ['http', 'stdio'] as const) {
        const s = direct(backend, caller);
        if (want(s.name)) list.push(s);
      }
    }
    if (want('floor')) {
      const floor = await startFloorProxy(sdk.url);
      gateways.push({ proc: floor.proc, url: floor.url, base: '', startMs: 0 });
      list.push({
        name: 'floor: node:http proxy → sdk-http',
        kind: 'floor',
        backend: 'http',
        caller: SDK1,
        target: {
          name: 'floor-sdk-http',
          transport: 'streamable-http',
          url: floor.url,
          tool: 'echo',
          serverPid: () => [floor.proc.pid],
          backendPid: () => [sdk.proc.pid],
          method: 'calltool',
        },
      });
    }
    for (const audit of [true, false]) {
      for (const { build, js } of builds) {
        const fronts = (['/mcp', '/sse'] as const).flatMap((front) => (front === '/sse' ? [SDK1] : GATEWAY_CALLERS).map((caller) => ({ front, caller })));
        const names = fronts.flatMap(({ front, caller }) => (['http', 'stdio'] as const).map((backend) => scenarioName(front, backend, audit, caller)));
        if (!names.some(want)) continue;
        const gw = await startGateway(`scenarios-${build}-${audit ? 'audit' : 'noaudit'}`, gatewayBackends, audit ? {} : { audit: { enabled: false } }, [], js);
        gateways.push(gw);
        // A build from before issue 32 has no 2026-07-28 to measure.
        const modern = await servesModern(gw.url);
        for (const { front, caller } of fronts) {
          if (caller.revision === '2026-07-28' && !modern) continue;
          for (const backend of ['http', 'stdio'] as const) {
            const name = scenarioName(front, backend, audit, caller);
            if (!want(name)) continue;
            list.push({
              name,
              kind: 'gateway',
              backend,
              build,
              caller,
              target: {
                name: `${name} (${build})`,
                transport: front === '/mcp' ? 'streamable-http' : 'sse',
                url: front === '/mcp' ? gw.url : `${gw.base}/sse`,
                tool: backend === 'http' ? 'h_echo' : 's_echo',
                serverPid: () => [gw.proc.pid],
                backendPid: backend === 'http' ? () => [sdk.proc.pid] : () => childPids(gw.proc.pid),
                method: 'calltool',
                v2: caller.v2,
              },
            });
          }
        }
      }
    }
    if (want('mcp-hub') && env.BENCH_HUB !== '0') {
      const hub = await startHub('scenarios', { h: { url: sdk.url }, s: sdkStdioCmd('s') });
      gateways.push({ proc: hub.proc, url: hub.url, base: '', startMs: hub.startMs });
      for (const backend of ['http', 'stdio'] as const) {
        list.push({
          name: `mcp-hub → sdk-${backend}`,
          kind: 'mcp-hub',
          backend,
          caller: SDK1,
          target: {
            name: `mcp-hub-sdk-${backend}`,
            transport: 'sse',
            url: hub.url,
            toolPattern: backend === 'http' ? '^h[^a-z0-9]*echo$' : '^s[^a-z0-9]*echo$',
            serverPid: () => [hub.proc.pid],
            backendPid: backend === 'http' ? () => [sdk.proc.pid] : () => childPids(hub.proc.pid),
            method: 'calltool',
          },
        });
      }
    }
    // Same-scenario builds next to each other (before, after), scenarios in a fixed order.
    list.sort((a, b) => order(a) - order(b));
    const phases: ScenarioRow[] = [];
    console.log(scenarioTable([]).split('\n').slice(0, 2).join('\n'));
    for (let round = 0; round < SCENARIO_ROUNDS; round++) {
      // Every other round runs backwards: no phase always follows the same one, and before and after swap places.
      const ordered = round % 2 === 0 ? list : [...list].reverse();
      for (const clients of SCENARIO_CLIENTS) {
        for (const s of ordered) {
          const row: ScenarioRow = {
            ...(await loadPhase(lg, s.target, clients)),
            scenario: s.name,
            kind: s.kind,
            backend: s.backend,
            build: s.build,
            caller: s.caller,
          };
          phases.push(row);
          console.log(scenarioTable([row], phases).split('\n')[2]);
        }
      }
    }
    const rows = SCENARIO_ROUNDS > 1 ? medianRows(phases) : phases;
    return { rows, phases, goals: judge(rows), revisions: compareRevisions(rows), builds: compareBuilds(phases), baseline: BASELINE_JS };
  } finally {
    await Promise.all([...gateways.map((g) => g.proc.stop()), sdk.proc.stop()]);
  }
}

function scenarioName(front: '/mcp' | '/sse', backend: BackendKind, audit: boolean, caller: Caller): string {
  return named(`gateway ${front} → sdk-${backend}${audit ? '' : ', audit off'}`, caller);
}

/** A scenario's name with its caller's tag before the arrow: `gateway /mcp [2026-07-28] → sdk-http`. */
const named = (name: string, caller: Caller) => (caller.tag ? name.replace(' → ', ` ${caller.tag} → `) : name);

/** Scenarios grouped by kind, audit, front, backend; the callers of one of them next to each other, each build before after. */
function order(s: Scenario): number {
  const kind = { direct: 0, floor: 1, gateway: 2, 'mcp-hub': 3 }[s.kind];
  const backend = s.backend === 'http' ? 0 : 1;
  const front = s.name.includes('/sse') ? 1 : 0;
  const audit = s.name.includes('audit off') ? 1 : 0;
  const caller = s.kind === 'direct' ? (s.caller.line === 'v2' ? 1 : 0) : GATEWAY_CALLERS.indexOf(s.caller);
  const build = s.build === 'before' ? 0 : 1;
  return kind * 100000 + audit * 10000 + front * 1000 + backend * 100 + caller * 10 + build;
}

/**
 * The direct row a row is read against: the same backend and client count, and the same client line when
 * there is one (a v2 client's rows against the v2 client straight to the backend, which speaks 2025-11-25).
 */
const directOf = (rows: readonly ScenarioRow[], backend: BackendKind, clients: number, line: Caller['line'] = '1.x') => {
  const direct = rows.filter((r) => r.kind === 'direct' && r.backend === backend && r.clients === clients);
  return direct.find((r) => r.caller.line === line) ?? direct.find((r) => r.caller.line === '1.x');
};

export function scenarioTable(rows: readonly ScenarioRow[], all: readonly ScenarioRow[] = rows): string {
  return table(
    [
      'scenario',
      'build',
      'clients',
      'calls/s',
      '% direct',
      'p50 ms',
      '+p50 ms',
      'p90 ms',
      'p99 ms',
      'srv µs/call',
      'srv wake-ups/call',
      'srv RSS MB',
      'backend µs/call',
      'loadgen cores',
      'load avg',
      'errors',
    ],
    rows.map((r) => {
      const d = r.kind === 'direct' ? undefined : directOf(all, r.backend, r.clients, r.caller.line);
      return [
        r.scenario,
        r.build ?? '',
        String(r.clients),
        f(r.calls_per_s),
        d ? `${f((100 * r.calls_per_s) / d.calls_per_s)}%` : '',
        f(r.p50_ms, 3),
        d ? f(r.p50_ms - d.p50_ms, 3) : '',
        f(r.p90_ms, 3),
        f(r.p99_ms, 3),
        f(r.server_cpu_us_per_call),
        f(r.server_wakeups_per_call, 1),
        f(r.server_rss_mb, 1),
        f(r.backend_cpu_us_per_call),
        f(r.loadgen_cores, 2),
        f(r.loadavg, 1),
        String(r.errors),
      ];
    }),
  );
}

function judge(rows: readonly ScenarioRow[]): ScenarioGoal[] {
  const floorAt = (clients: number) => rows.find((r) => r.kind === 'floor' && r.clients === clients);
  const addedP50 = (row: ScenarioRow | undefined) => {
    const d = row && directOf(rows, row.backend, row.clients, row.caller.line);
    return row && d ? row.p50_ms - d.p50_ms : null;
  };
  const ratio = (a?: number | null, b?: number | null) => (a == null || b == null || b <= 0 ? null : a / b);
  const floorAdded = addedP50(floorAt(1));
  const goals: ScenarioGoal[] = [];
  const seen = new Set<string>();
  for (const r of rows) {
    if (r.kind !== 'gateway') continue;
    const key = `${r.scenario}|${r.build}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const at = (clients: number) => rows.find((x) => x.scenario === r.scenario && x.build === r.build && x.clients === clients);
    const one = at(1);
    const many = at(16);
    const added = addedP50(one);
    const cpuX1 = ratio(one?.server_cpu_us_per_call, floorAt(1)?.server_cpu_us_per_call);
    const cpuX16 = ratio(many?.server_cpu_us_per_call, floorAt(16)?.server_cpu_us_per_call);
    const share = ratio(many?.calls_per_s, floorAt(16)?.calls_per_s);
    const cpus = [cpuX1, cpuX16].filter((v): v is number => v !== null);
    goals.push({
      scenario: r.scenario,
      build: r.build,
      added_p50_ms: added,
      floor_added_p50_ms: floorAdded,
      cpu_us_1: one?.server_cpu_us_per_call ?? null,
      cpu_us_16: many?.server_cpu_us_per_call ?? null,
      cpu_x_floor_1: cpuX1,
      cpu_x_floor_16: cpuX16,
      share_of_floor_16: share,
      rss_mb: many?.server_rss_mb ?? one?.server_rss_mb ?? null,
      met: {
        latency: added === null || floorAdded === null ? null : added <= floorAdded + GOALS.addedP50OverFloorMs,
        cpu: cpus.length === 0 ? null : cpus.every((x) => x <= GOALS.cpuTimesFloor),
        throughput: share === null ? null : share >= GOALS.throughputShareOfFloor,
      },
    });
  }
  return goals;
}

const mark = (met: boolean | null) => (met === null ? '' : met ? ' ok' : ' MISSED');

export function goalTable(goals: readonly ScenarioGoal[]): string {
  const floorAdded = goals.find((g) => g.floor_added_p50_ms !== null)?.floor_added_p50_ms ?? null;
  return table(
    [
      'scenario',
      'build',
      `+p50 at 1 client (≤ floor ${f(floorAdded, 3)} + ${GOALS.addedP50OverFloorMs} ms)`,
      `CPU µs/call, 1 | 16 clients (≤ ${GOALS.cpuTimesFloor}× floor)`,
      `calls/s at 16 clients (≥ ${100 * GOALS.throughputShareOfFloor}% of floor)`,
      'RSS MB',
    ],
    goals.map((g) => [
      g.scenario,
      g.build ?? '',
      `${f(g.added_p50_ms, 3)} ms${mark(g.met.latency)}`,
      `${f(g.cpu_us_1)} | ${f(g.cpu_us_16)} µs = ${f(g.cpu_x_floor_1, 2)}× | ${f(g.cpu_x_floor_16, 2)}×${mark(g.met.cpu)}`,
      `${g.share_of_floor_16 === null ? '-' : f(100 * g.share_of_floor_16, 1)}%${mark(g.met.throughput)}`,
      f(g.rss_mb, 1),
    ]),
  );
}
