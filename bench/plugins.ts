/**
 * The bench's `plugins` section (issue 27): what each built-in plugin costs
 * on the bench's call (SDK `Client.callTool` of `echo` through `/mcp` to the
 * SDK backend over streamable HTTP), and that a gateway without `plugins:`
 * does no extra work.
 *
 * End to end: one process per variant (the floor proxy, the gateway with no
 * plugins, with each built-in alone, with all of them), all started at once
 * and measured in rounds, the variants interleaved in each round so that the
 * machine's drift hits them alike; the median of the rounds is reported. The
 * floor (bench/floor-proxy.ts: a bare node:http pass-through) is what any
 * Node process in the path costs on the same machine at the same moment.
 * With BENCH_BASELINE, that build (a gateway without plugins) is a variant
 * too: "no extra work" is the no-plugin row against it, same run.
 *
 * Beside each row, the chain's own CPU per call measured in this process
 * (./plugin-cost.ts), which time-sharing noise hardly touches: its share of
 * the no-plugin gateway's CPU per call is what the issue bounds (≤ 5 %).
 * Below, in this process only, the calls the bench's echo does not make:
 * a 10 kB text (what the scanners' cost grows with), a read-only tool
 * (response_cache misses and hits) and an idempotent one (retries armed).
 * Beside the built-ins, a plugin of your own that does nothing, in its
 * worker thread (issue 31): the hop's CPU (the process's, the worker's
 * included) and what it adds to a call's time.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { f, table } from './format.js';
import { GATEWAY_JS, QUICK, loadPhase, startFloorProxy, startGateway, startHttpBackend, type LoadGen } from './harness.js';
import type { Proc } from './proc.js';
import { median } from './stats.js';
import { chainCost, type ChainCost, type CostCall } from './plugin-cost.js';

const env = process.env;
const ROUNDS = Number(env.BENCH_PLUGIN_ROUNDS ?? (QUICK ? 1 : 3));
const CLIENTS = (env.BENCH_PLUGIN_CLIENTS ?? '1,16').split(',').map(Number);
/** The issue's bound: at most this share of the gateway's CPU per call, each built-in. */
export const PLUGIN_CPU_SHARE = 0.05;

/** Each built-in as the bench runs it: settings that never refuse the bench's calls. */
const BUILTINS: Array<{ name: string; plugins: unknown[] }> = [
  { name: 'rate_limiter', plugins: [{ name: 'rate_limiter', settings: { max_requests: 1_000_000_000, window_s: 60, per: 'client' } }] },
  { name: 'circuit_breaker', plugins: [{ name: 'circuit_breaker' }] },
  { name: 'retry_with_backoff', plugins: [{ name: 'retry_with_backoff' }] },
  { name: 'response_cache', plugins: [{ name: 'response_cache' }] },
  { name: 'output_length_guard', plugins: [{ name: 'output_length_guard' }] },
  { name: 'secrets_detection', plugins: [{ name: 'secrets_detection' }] },
  { name: 'pii_filter', plugins: [{ name: 'pii_filter' }] },
  { name: 'markdown_cleaner', plugins: [{ name: 'markdown_cleaner' }] },
];
const ALL = { name: 'all eight', plugins: BUILTINS.flatMap((b) => b.plugins) };

/**
 * Plugins of your own that do nothing, in their worker threads (issue 31):
 * what the hop costs, one message each way per hook call. Not bound by the
 * built-ins' 5 %: a module of your own does what it does; this is the floor.
 */
const OWN_MODULES: Array<{ name: string; source: string }> = [
  { name: 'own plugin (worker), pre hook', source: 'export const hooks = { tool_pre_invoke() {} };\n' },
  {
    name: 'own plugin (worker), pre + post hooks',
    source: 'export const hooks = { tool_pre_invoke() {}, tool_post_invoke(ctx, result) { return result; } };\n',
  },
];
const isOwn = (variant: string) => OWN_MODULES.some((o) => o.name === variant);

/** Writes the modules of your own into `dir`: each variant's plugins, by name. */
function ownVariants(dir: string): Array<{ name: string; plugins: unknown[] }> {
  return OWN_MODULES.map((o, i) => {
    const path = join(dir, `own-${i}.mjs`);
    writeFileSync(path, o.source);
    return { name: o.name, plugins: [{ name: 'own', module: path }] };
  });
}
const NONE = 'none';
const FLOOR = 'floor (node:http proxy)';

/** Ordinary prose with numbers, dates and a link, no secret or personal data: what a scanner reads through. */
const PROSE =
  'The report for 2026-11-26 lists 42 open items across 7 teams; see [the tracker](https://example.com/items) for details. ' +
  'Build 1.4.2 took 318 s on the CI runner, 12 % faster than last week, and the cache hit rate rose to 0.87. ';
const LARGE_TEXT = PROSE.repeat(Math.ceil(10_000 / PROSE.length)).slice(0, 10_000);

/** In-process only: calls the bench's echo does not make (with `own`, the modules of your own too). */
const otherCalls = (own: ReadonlyArray<{ name: string; plugins: unknown[] }>): Array<{ variant: string; call: string; plugins: unknown[]; how: CostCall }> => [
  ...BUILTINS.map((b) => ({ variant: b.name, call: 'echo of a 10 kB text', plugins: b.plugins, how: { text: LARGE_TEXT } })),
  { variant: ALL.name, call: 'echo of a 10 kB text', plugins: ALL.plugins, how: { text: LARGE_TEXT } },
  {
    variant: 'response_cache',
    call: 'read-only tool, every call a miss',
    plugins: [{ name: 'response_cache' }],
    how: { annotations: { readOnlyHint: true }, vary: true },
  },
  { variant: 'response_cache', call: 'read-only tool, every call a hit', plugins: [{ name: 'response_cache' }], how: { annotations: { readOnlyHint: true } } },
  {
    variant: 'retry_with_backoff',
    call: 'idempotent tool (no failure)',
    plugins: [{ name: 'retry_with_backoff' }],
    how: { annotations: { idempotentHint: true } },
  },
  ...own.map((o) => ({ variant: o.name, call: 'echo of a 10 kB text', plugins: o.plugins, how: { text: LARGE_TEXT } })),
];

interface Variant {
  name: string;
  /** Absent: no chain (the floor, a gateway without plugins). */
  plugins?: unknown[];
  /** A gateway build; absent for the floor. */
  js?: string;
  proc?: Proc;
  url?: string;
}

export interface PluginRow {
  variant: string;
  clients: number;
  /** CPU of the gateway (or the floor) per call, median over the rounds. */
  cpu_us_per_call: number;
  calls_per_s: number;
  p50_ms: number;
  /** The chain's own CPU per call, measured in-process; null for no chain. */
  chain_us: number | null;
  /** What the chain adds to a call's time, in-process; null for no chain. */
  chain_wall_us: number | null;
  rounds: number[];
}

export interface OtherCallRow {
  variant: string;
  call: string;
  chain_us: number;
  /** What the chain adds to the time until the answer (a worker's hop waits for another thread). */
  wall_us: number;
}

export interface PluginResults {
  rows: PluginRow[];
  other_calls: OtherCallRow[];
  baseline?: string;
}

export async function pluginsSection(lg: LoadGen, baselineJs?: string): Promise<PluginResults> {
  const sdk = await startHttpBackend('plugins-sdk', 'sdk');
  const moduleDir = mkdtempSync(join(tmpdir(), 'bench-own-plugins-'));
  const own = ownVariants(moduleDir);
  const variants: Variant[] = [
    { name: FLOOR },
    ...(baselineJs ? [{ name: 'none (baseline build)', js: baselineJs }] : []),
    { name: NONE, js: GATEWAY_JS },
    ...BUILTINS.map((b) => ({ ...b, js: GATEWAY_JS })),
    { ...ALL, js: GATEWAY_JS },
    ...own.map((o) => ({ ...o, js: GATEWAY_JS })),
  ];
  try {
    for (const v of variants) {
      if (v.js === undefined) {
        ({ proc: v.proc, url: v.url } = await startFloorProxy(sdk.url));
        continue;
      }
      const extra = v.plugins ? { plugins: v.plugins } : {};
      const gw = await startGateway(`plugins-${v.name.replace(/\W+/g, '-')}`, { h: { type: 'streamable-http', url: sdk.url } }, extra, [], v.js);
      v.proc = gw.proc;
      v.url = gw.url;
    }
    const chainUs = new Map<string, ChainCost | null>();
    for (const v of variants) chainUs.set(v.name, v.plugins ? await chainCost(v.plugins) : null);
    const samples = new Map<string, Array<{ cpu: number; cps: number; p50: number }>>();
    console.log(`rounds: ${ROUNDS}, clients: ${CLIENTS.join(', ')}; variants interleaved in each round`);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const clients of CLIENTS) {
        for (const v of variants) {
          const row = await loadPhase(
            lg,
            {
              name: `plugins ${v.name}`,
              transport: 'streamable-http',
              url: v.url!,
              // Through the floor the client sees the backend's own tool names.
              tool: v.js === undefined ? 'echo' : 'h_echo',
              serverPid: () => [v.proc!.pid],
              method: 'calltool',
            },
            clients,
          );
          const key = `${v.name}|${clients}`;
          (samples.get(key) ?? samples.set(key, []).get(key)!).push({ cpu: row.server_cpu_us_per_call ?? NaN, cps: row.calls_per_s, p50: row.p50_ms });
          console.log(
            `  round ${round}, ${clients} client(s), ${v.name}: ${f(row.server_cpu_us_per_call)} µs/call, ${f(row.calls_per_s)} calls/s${row.errors ? `, ${row.errors} errors` : ''}`,
          );
        }
      }
    }
    const rows: PluginRow[] = [];
    for (const clients of CLIENTS) {
      for (const v of variants) {
        const s = samples.get(`${v.name}|${clients}`) ?? [];
        rows.push({
          variant: v.name,
          clients,
          cpu_us_per_call: median(s.map((x) => x.cpu)),
          calls_per_s: median(s.map((x) => x.cps)),
          p50_ms: median(s.map((x) => x.p50)),
          chain_us: chainUs.get(v.name)?.cpu_us ?? null,
          chain_wall_us: chainUs.get(v.name)?.wall_us ?? null,
          rounds: s.map((x) => x.cpu),
        });
      }
    }
    const other_calls: OtherCallRow[] = [];
    for (const o of otherCalls(own)) {
      const cost = await chainCost(o.plugins, o.how);
      other_calls.push({ variant: o.variant, call: o.call, chain_us: cost.cpu_us, wall_us: cost.wall_us });
    }
    return { rows, other_calls, baseline: baselineJs };
  } finally {
    await Promise.all([...variants.map((v) => v.proc?.stop()), sdk.proc.stop()]);
    rmSync(moduleDir, { recursive: true, force: true });
  }
}

/** The no-plugin gateway's row of the same client count: what a share is of. */
const noneOf = (rows: readonly PluginRow[], clients: number) => rows.find((x) => x.variant === NONE && x.clients === clients);

/**
 * One row per variant and client count: the gateway's CPU per call (median,
 * with the rounds), its difference from the no-plugin gateway of the same
 * run, and the chain's own CPU per call as a share of that gateway's.
 */
export function pluginTable(rows: readonly PluginRow[]): string {
  return table(
    [
      'plugins',
      'clients',
      'µs/call',
      'rounds',
      'vs none',
      'calls/s',
      'p50 ms',
      'chain µs/call (in-process)',
      'chain wall µs/call',
      `chain share (≤ ${100 * PLUGIN_CPU_SHARE}%)`,
    ],
    rows.map((r) => {
      const none = noneOf(rows, r.clients);
      const share = r.chain_us !== null && none ? r.chain_us / none.cpu_us_per_call : null;
      return [
        r.variant,
        String(r.clients),
        f(r.cpu_us_per_call),
        r.rounds.map((x) => f(x)).join('/'),
        none && r !== none
          ? `${r.cpu_us_per_call >= none.cpu_us_per_call ? '+' : ''}${f((100 * (r.cpu_us_per_call - none.cpu_us_per_call)) / none.cpu_us_per_call, 1)}%`
          : '',
        f(r.calls_per_s),
        f(r.p50_ms, 3),
        r.chain_us === null ? '' : f(r.chain_us, 1),
        r.chain_wall_us === null ? '' : f(r.chain_wall_us, 1),
        share === null ? '' : `${f(100 * share, 2)}%${r.variant === ALL.name || isOwn(r.variant) ? '' : share <= PLUGIN_CPU_SHARE ? ' ok' : ' MISSED'}`,
      ];
    }),
  );
}

export function otherCallsTable(rows: readonly OtherCallRow[]): string {
  return table(
    ['plugins', 'call', 'chain µs/call (in-process)', 'chain wall µs/call'],
    rows.map((r) => [r.variant, r.call, f(r.chain_us, 1), f(r.wall_us, 1)]),
  );
}

/** The issue's bound, each built-in: its largest share of the no-plugin gateway's CPU per call over the client counts. */
export function pluginTargets(results: PluginResults): Array<{ target: string; limit: string; measured: string; met: boolean | null }> {
  const out: Array<{ target: string; limit: string; measured: string; met: boolean | null }> = [];
  for (const b of BUILTINS) {
    const shares = results.rows
      .filter((r) => r.variant === b.name && r.chain_us !== null)
      .map((r) => ({ clients: r.clients, share: r.chain_us! / (noneOf(results.rows, r.clients)?.cpu_us_per_call ?? NaN) }));
    const worst = shares.reduce<{ clients: number; share: number } | undefined>((w, s) => (w === undefined || !(s.share <= w.share) ? s : w), undefined);
    if (worst === undefined) continue;
    out.push({
      target: `${b.name}: CPU per bench call, share of the gateway's (${worst.clients} client(s))`,
      limit: `<= ${100 * PLUGIN_CPU_SHARE}%`,
      measured: `${f(100 * worst.share, 2)}%`,
      met: worst.share <= PLUGIN_CPU_SHARE,
    });
  }
  return out;
}
