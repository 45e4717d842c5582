/**
 * Two gateway builds, side by side, under the same load:
 *
 *   node dist/bench/compare.js A_GATEWAY_JS B_GATEWAY_JS [scenario] [clients] [rounds] [seconds]
 *     scenario: mcp-sdk-http (default) | mcp-sdk-stdio | sse-sdk-http | sse-sdk-stdio |
 *               mcp-bench-http | mcp-bench-stdio (the cheap bench backend, passthrough calls)
 *     BENCH_AUDIT=0 runs both with the audit trail off.
 *     BENCH_V2=pin-2026-07-28 | legacy: the SDK scenarios through /mcp are called by the SDK's v2
 *     client, pinned to 2026-07-28 or at 2025-11-25 (as in bench/profile.ts --v2).
 *     BENCH_RATE=N offers N calls/s in every phase (paced): CPU per call at one
 *     throughput, whichever build is faster (bench/revision-compare.ts says why).
 *     `floor` in place of a build runs the bare node:http pass-through proxy
 *     (bench/floor-proxy.ts) to the HTTP backend instead: the floor of any
 *     Node process with two loopback hops (http scenarios through /mcp only).
 *
 * Both gateways run at once on the same backends; phases alternate A, B, A, B…
 * so that whatever else the machine is doing hits both alike. Prints each
 * phase and the medians: gateway CPU per call (from /proc), wake-ups per call,
 * calls/s and p50. This is how each change's effect in docs/performance.md was
 * measured (A = the build before the change, B = with it).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { f, table } from './format.js';
import { runMain } from './proc.js';
import {
  LoadGen,
  backendCmd,
  childPids,
  loadPhase,
  sdkStdioCmd,
  startFloorProxy,
  startGateway,
  startHttpBackend,
  removeWork,
  type Row,
  type Target,
} from './harness.js';
import { median } from './stats.js';
import type { V2Negotiation } from './v2-load-client.js';

const RATE = process.env.BENCH_RATE ? Number(process.env.BENCH_RATE) : undefined;
const V2 = process.env.BENCH_V2 as V2Negotiation | undefined;
const SCENARIOS = ['mcp-sdk-http', 'mcp-sdk-stdio', 'sse-sdk-http', 'sse-sdk-stdio', 'mcp-bench-http', 'mcp-bench-stdio'];

async function main(): Promise<void> {
  const [aArg, bArg, scenario = 'mcp-sdk-http', clientsArg = '16', roundsArg = '5', seconds = '3'] = process.argv.slice(2);
  if (!aArg || !bArg) throw new Error('usage: compare.js A_GATEWAY_JS B_GATEWAY_JS [scenario] [clients] [rounds] [seconds]');
  // The gateways run in their own directories: relative paths are the caller's.
  const [aJs, bJs] = [aArg, bArg].map((arg) => (arg === 'floor' ? arg : resolve(arg)));
  const clients = Number(clientsArg);
  const rounds = Number(roundsArg);
  if (!SCENARIOS.includes(scenario)) throw new Error(`unknown scenario ${scenario}: one of ${SCENARIOS.join(', ')}`);
  if (V2 !== undefined && V2 !== 'pin-2026-07-28' && V2 !== 'legacy') throw new Error('BENCH_V2: pin-2026-07-28 or legacy');
  if (V2 !== undefined && !scenario.startsWith('mcp-sdk-')) throw new Error('BENCH_V2 drives the mcp-sdk-* scenarios only');
  if (!(Number.isInteger(clients) && clients >= 1 && Number.isInteger(rounds) && rounds >= 1 && Number(seconds) > 0)) {
    throw new Error('clients and rounds must be whole numbers ≥ 1, seconds > 0');
  }
  const viaSse = scenario.startsWith('sse-');
  const stdio = scenario.endsWith('stdio');
  // Checked before anything starts: the floor only fronts the HTTP backend on /mcp.
  if ((aJs === 'floor' || bJs === 'floor') && (viaSse || stdio)) {
    throw new Error('floor: only the http scenarios through /mcp (mcp-sdk-http, mcp-bench-http)');
  }
  for (const js of [aJs!, bJs!]) if (js !== 'floor' && !existsSync(js)) throw new Error(`no gateway build at ${js}`);
  const sdk = scenario.includes('sdk');
  const backend = await startHttpBackend('h', sdk ? 'sdk' : 'bench');
  const backends = { h: { type: 'streamable-http', url: backend.url }, s: { type: 'stdio', ...(sdk ? sdkStdioCmd('s') : backendCmd(['--name', 's'])) } };
  const start = async (name: string, js: string) => {
    if (js !== 'floor') return { ...(await startGateway(name, backends, {}, [], js)), floor: false };
    const proxy = await startFloorProxy(backend.url);
    return { proc: proxy.proc, url: proxy.url, base: proxy.url, floor: true };
  };
  const a = await start('compare-a', aJs!);
  const b = await start('compare-b', bJs!);
  const lg = new LoadGen(1);
  const target = (name: string, gw: typeof a): Target => {
    return {
      name,
      transport: viaSse ? 'sse' : 'streamable-http',
      url: viaSse ? `${gw.base}/sse` : gw.url,
      // Through the floor proxy the client sees the backend's own tool names.
      tool: gw.floor ? 'echo' : stdio ? 's_echo' : 'h_echo',
      serverPid: () => [gw.proc.pid],
      backendPid: stdio ? () => childPids(gw.proc.pid) : () => [backend.proc.pid],
      method: sdk ? 'calltool' : 'call',
      v2: V2,
    };
  };
  const rows: Row[] = [];
  try {
    for (let r = 0; r < rounds; r++) {
      // Alternate which goes first, so neither always follows the other.
      const order = r % 2 === 0 ? [['A', a] as const, ['B', b] as const] : [['B', b] as const, ['A', a] as const];
      for (const [name, gw] of order) {
        const row = await loadPhase(lg, target(name, gw), clients, undefined, Number(seconds), RATE);
        rows.push(row);
        console.log(
          `${name}  ${f(row.server_cpu_us_per_call)} µs/call  ${f(row.server_wakeups_per_call, 2)} wake-ups/call  ${f(row.calls_per_s)} calls/s  p50 ${f(row.p50_ms, 3)} ms`,
        );
      }
    }
  } finally {
    lg.stop();
    await Promise.all([a.proc.stop(), b.proc.stop(), backend.proc.stop()]);
  }
  const of = (name: string, k: keyof Row) => median(rows.filter((x) => x.target === name).map((x) => x[k] as number));
  const cols: Array<[string, keyof Row, number]> = [
    ['CPU µs/call', 'server_cpu_us_per_call', 0],
    ['wake-ups/call', 'server_wakeups_per_call', 2],
    ['calls/s', 'calls_per_s', 0],
    ['p50 ms', 'p50_ms', 3],
    ['p90 ms', 'p90_ms', 3],
  ];
  console.log(`\n${scenario}, ${clients} clients${RATE ? ` offering ${RATE} calls/s` : ''}, ${rounds} rounds of ${seconds} s, medians; A = ${aJs}, B = ${bJs}`);
  console.log(
    table(
      ['', ...cols.map((c) => c[0])],
      [
        ['A', ...cols.map(([, k, d]) => f(of('A', k), d))],
        ['B', ...cols.map(([, k, d]) => f(of('B', k), d))],
        ['B / A', ...cols.map(([, k]) => f(of('B', k) / of('A', k), 2))],
      ],
    ),
  );
}

runMain(main, removeWork);
