/**
 * One gateway, its /mcp called at each protocol revision in alternating phases (issue 32):
 *
 *   node dist/bench/revision-compare.js [backend] [clients] [rounds] [seconds] [gateway.js]
 *     backend: http (default; the SDK fixture over streamable HTTP) | stdio
 *     BENCH_AUDIT=0 runs the gateway with the audit trail off.
 *     BENCH_RATE=N offers N calls/s in every phase (paced) instead of a closed
 *     loop: the gateway's CPU per call falls as its throughput rises (more
 *     requests per wake-up), and the three callers do not drive it equally
 *     fast (a 2026-07-28 client costs the load generator more per call), so
 *     only at one offered rate is CPU per call compared like for like.
 *     BENCH_PIN=1 puts the gateway alone on CPU 0, and its backends and the
 *     load generator on CPU 1 (needs `taskset` and two CPUs): the heavier
 *     client then cannot slow the gateway by sharing its core.
 *
 * The callers of bench/revisions.ts take turns on the same gateway process
 * (1.x client at 2025-11-25, v2 client at 2025-11-25, v2 client pinned to
 * 2026-07-28), the first of each round rotating, so that whatever else the
 * machine does hits all three alike and no second process's warm-up or place
 * in the order is measured. Prints each phase and the medians of the
 * gateway's CPU per call, and 2026-07-28 over each 2025-11-25 caller: the
 * scenarios' single phase per row cannot answer "costs no more" on a loaded
 * machine; medians of interleaved phases can come closer, and the median of
 * the per-round ratios, with a bootstrap interval, says how close.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { f, table } from './format.js';
import { pinToCpu, runMain } from './proc.js';
import { GATEWAY_JS, LoadGen, childPids, loadPhase, sdkStdioCmd, startGateway, startHttpBackend, removeWork, type Row } from './harness.js';
import { GATEWAY_CALLERS, V2_MODERN, type Caller } from './revisions.js';
import { median, medianInterval } from './stats.js';

const RATE = process.env.BENCH_RATE ? Number(process.env.BENCH_RATE) : undefined;
/** BENCH_PIN=1: the gateway alone on one CPU, everything else on the other (bench/proc.ts, pinToCpu). */
const PIN = process.env.BENCH_PIN === '1';
const label = (c: Caller) => `${c.revision} ${c.line}`;

async function main(): Promise<void> {
  const [backendArg = 'http', clientsArg = '16', roundsArg = '6', seconds = '3', jsArg = GATEWAY_JS] = process.argv.slice(2);
  const clients = Number(clientsArg);
  const rounds = Number(roundsArg);
  if (backendArg !== 'http' && backendArg !== 'stdio') throw new Error('backend: http or stdio');
  if (!(Number.isInteger(clients) && clients >= 1 && Number.isInteger(rounds) && rounds >= 1 && Number(seconds) > 0)) {
    throw new Error('clients and rounds must be whole numbers ≥ 1, seconds > 0');
  }
  const js = resolve(jsArg);
  if (!existsSync(js)) throw new Error(`no gateway build at ${js}`);
  const backend = await startHttpBackend('h', 'sdk');
  const gw = await startGateway('revisions', { h: { type: 'streamable-http', url: backend.url }, s: { type: 'stdio', ...sdkStdioCmd('s') } }, {}, [], js);
  const lg = new LoadGen(1);
  if (PIN) {
    // The gateway alone on CPU 0; its backends, the clients and this driver on CPU 1.
    pinToCpu([gw.proc.pid], 0);
    pinToCpu([...childPids(gw.proc.pid), backend.proc.pid, ...lg.pids, process.pid], 1);
  }
  const rows: Array<Row & { caller: Caller }> = [];
  try {
    for (let r = 0; r < rounds; r++) {
      const n = GATEWAY_CALLERS.length;
      const turn = GATEWAY_CALLERS.map((_, i) => GATEWAY_CALLERS[(i + r) % n]!);
      for (const caller of turn) {
        const row = await loadPhase(
          lg,
          {
            name: label(caller),
            transport: 'streamable-http',
            url: gw.url,
            tool: backendArg === 'http' ? 'h_echo' : 's_echo',
            serverPid: () => [gw.proc.pid],
            backendPid: backendArg === 'http' ? () => [backend.proc.pid] : () => childPids(gw.proc.pid),
            method: 'calltool',
            v2: caller.v2,
          },
          clients,
          'calltool',
          Number(seconds),
          RATE,
        );
        rows.push({ ...row, caller });
        console.log(
          `${label(caller).padEnd(14)}  ${f(row.server_cpu_us_per_call)} µs/call (system ${f(row.server_sys_us_per_call)})  ${f(row.calls_per_s)} calls/s  p50 ${f(row.p50_ms, 3)} ms  loadgen ${f(row.loadgen_cores, 2)} cores  load ${f(row.loadavg, 1)}${row.errors ? `  ${row.errors} errors: ${row.first_error}` : ''}`,
        );
      }
    }
  } finally {
    lg.stop();
    await Promise.all([gw.proc.stop(), backend.proc.stop()]);
  }
  const of = (c: Caller, k: keyof Row) => median(rows.filter((x) => x.caller === c).map((x) => x[k] as number));
  // Round by round, 2026-07-28's CPU over this caller's: phases of one round share the machine's mood, so the
  // paired ratios spread less than the two medians apart; the interval says how far the median ratio can be trusted.
  const paired = (c: Caller) => {
    const n = GATEWAY_CALLERS.length;
    const cpu = (r: number, caller: Caller) => rows.slice(r * n, (r + 1) * n).find((x) => x.caller === caller)?.server_cpu_us_per_call ?? NaN;
    const ratios = Array.from({ length: rounds }, (_, r) => cpu(r, V2_MODERN) / cpu(r, c));
    const [low, high] = medianInterval(ratios);
    return `${f(median(ratios), 2)} (${f(low, 2)}–${f(high, 2)})`;
  };
  const cols: Array<[string, keyof Row, number]> = [
    ['gateway CPU µs/call', 'server_cpu_us_per_call', 0],
    ['of it system', 'server_sys_us_per_call', 0],
    ['wake-ups/call', 'server_wakeups_per_call', 2],
    ['calls/s', 'calls_per_s', 0],
    ['p50 ms', 'p50_ms', 3],
    ['loadgen µs/call', 'loadgen_cpu_us_per_call', 0],
    ['load avg', 'loadavg', 1],
  ];
  const spread = (c: Caller) => {
    const xs = rows.filter((x) => x.caller === c).map((x) => x.server_cpu_us_per_call ?? NaN);
    return `${f(Math.min(...xs))}–${f(Math.max(...xs))}`;
  };
  console.log(
    `\nsdk-${backendArg}, ${clients} clients${RATE ? ` offering ${RATE} calls/s` : ''}, ${rounds} rounds of ${seconds} s, medians; audit ${process.env.BENCH_AUDIT === '0' ? 'off' : 'on'}${PIN ? '; gateway alone on CPU 0, backends and clients on CPU 1' : ''}; ${js}`,
  );
  console.log(
    table(
      ['caller', ...cols.map((c) => c[0]), 'CPU range', '2026-07-28 CPU ÷ this', 'per round (95% interval)'],
      GATEWAY_CALLERS.map((c) => [
        label(c),
        ...cols.map(([, k, d]) => f(of(c, k), d)),
        spread(c),
        f(of(V2_MODERN, 'server_cpu_us_per_call') / of(c, 'server_cpu_us_per_call'), 2),
        paired(c),
      ]),
    ),
  );
}

runMain(main, removeWork);
