/**
 * What one tools/call leaves to the gateway's garbage collector, at each
 * protocol revision (issue 32):
 *
 *   node dist/bench/revision-gc.js [stdio|http] [clients] [rounds] [seconds] [gateway.js]
 *     BENCH_RATE=N paces the load at N calls/s instead of a closed loop.
 *
 * The same plain fetch() client drives both revisions (a 2025-11-25 session,
 * or 2026-07-28 requests with their `_meta` envelope and headers), so the
 * client side costs alike and only the gateway differs. The gateway runs
 * with `--trace-gc`; per phase it prints the young-generation collections
 * per 1,000 calls, their time per call, and what each call left to the old
 * generation (the growth of the heap across scavenges). An object promoted
 * there is kept until the next full collection and costs every scavenge in
 * between; docs/performance.md ("What a Map costs") tells what this found.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { f, table } from './format.js';
import { cpuMicros, mainThreadWakeups, runMain } from './proc.js';
import { GATEWAY_JS, sdkStdioCmd, startGateway, startHttpBackend, removeWork, work } from './harness.js';
import { median } from './stats.js';

const RATE = process.env.BENCH_RATE ? Number(process.env.BENCH_RATE) : undefined;
const MODERN = '2026-07-28' as const;
const LEGACY = '2025-11-25' as const;
const BASE_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bench-gc', version: '1.0.0' },
};
type Revision = typeof LEGACY | typeof MODERN;

interface GcReading {
  scavenges: number;
  scavengeMs: number;
  /** MB the heap grew by across scavenges (what they promoted, less what full collections freed in between). */
  promotedMb: number;
}

/** Sums the `--trace-gc` lines of one phase. */
function readGc(trace: string): GcReading {
  const scavenges = [...trace.matchAll(/Scavenge ([\d.]+) \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB.*?([\d.]+) \/ [\d.]+ ms/g)];
  let promotedMb = 0;
  for (let i = 1; i < scavenges.length; i++) {
    const grew = Number(scavenges[i]![2]) - Number(scavenges[i - 1]![2]);
    if (grew >= 0) promotedMb += grew;
  }
  return { scavenges: scavenges.length, scavengeMs: scavenges.reduce((sum, m) => sum + Number(m[3]), 0), promotedMb };
}

async function post(url: string, headers: Record<string, string>, body: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { ...BASE_HEADERS, ...headers }, body: JSON.stringify(body) });
}

/** One client's loop of tools/call until the deadline; counts answered calls. */
async function caller(url: string, revision: Revision, tool: string, until: number, spacingMs: number, counted: { calls: number }): Promise<void> {
  let headers: Record<string, string>;
  if (revision === LEGACY) {
    const init = await post(
      url,
      {},
      {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'bench-gc', version: '1.0.0' } },
      },
    );
    const session = init.headers.get('mcp-session-id');
    await init.text();
    if (!session) throw new Error(`no session: HTTP ${init.status}`);
    headers = { 'mcp-session-id': session, 'mcp-protocol-version': LEGACY };
    await (await post(url, headers, { jsonrpc: '2.0', method: 'notifications/initialized' })).text();
  } else {
    headers = { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': tool };
  }
  const start = performance.now() + Math.random() * spacingMs;
  for (let k = 0, id = 1; performance.now() < until; k++) {
    if (spacingMs) {
      const wait = start + k * spacingMs - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (performance.now() >= until) break;
    }
    const params = { name: tool, arguments: { text: 'hello from the bench' }, ...(revision === MODERN ? { _meta: ENVELOPE } : {}) };
    const res = await post(url, headers, { jsonrpc: '2.0', id: id++, method: 'tools/call', params });
    const text = await res.text();
    if (!res.ok || text.includes('"error":{')) throw new Error(`${revision} tools/call: HTTP ${res.status} ${text.slice(0, 300)}`);
    counted.calls++;
  }
}

async function main(): Promise<void> {
  const [backendArg = 'stdio', clientsArg = '16', roundsArg = '4', seconds = '5', jsArg = GATEWAY_JS] = process.argv.slice(2);
  const clients = Number(clientsArg);
  const rounds = Number(roundsArg);
  if (backendArg !== 'http' && backendArg !== 'stdio') throw new Error('backend: http or stdio');
  const js = resolve(jsArg);
  if (!existsSync(js)) throw new Error(`no gateway build at ${js}`);
  const http = backendArg === 'http' ? await startHttpBackend('h', 'sdk') : undefined;
  const backends = http ? { h: { type: 'streamable-http', url: http.url } } : { s: { type: 'stdio', ...sdkStdioCmd('s') } };
  const gw = await startGateway('revision-gc', backends, {}, ['--trace-gc'], js);
  const tool = http ? 'h_echo' : 's_echo';
  const trace = () => readFileSync(join(work, 'revision-gc', 'stdout.log'), 'utf8');
  const spacingMs = RATE ? (1000 * clients) / RATE : 0;
  const phase = async (revision: Revision, ms: number) => {
    const counted = { calls: 0 };
    const until = performance.now() + ms;
    await Promise.all(Array.from({ length: clients }, () => caller(gw.url, revision, tool, until, spacingMs, counted)));
    return counted.calls;
  };
  const rows: Array<{ revision: Revision; calls: number; cpuUs: number; wakeups: number; gc: GcReading }> = [];
  try {
    for (let r = 0; r < rounds; r++) {
      for (const revision of r % 2 ? ([MODERN, LEGACY] as const) : ([LEGACY, MODERN] as const)) {
        await phase(revision, 1000); // warm-up: sessions, JIT
        const from = trace().length;
        const cpu0 = cpuMicros(gw.proc.pid);
        const woken0 = mainThreadWakeups(gw.proc.pid);
        const calls = await phase(revision, Number(seconds) * 1000);
        const row = {
          revision,
          calls,
          cpuUs: cpuMicros(gw.proc.pid) - cpu0,
          wakeups: mainThreadWakeups(gw.proc.pid) - woken0,
          gc: readGc(trace().slice(from)),
        };
        rows.push(row);
        console.log(
          `${revision}  ${calls} calls  ${f(row.cpuUs / calls)} µs CPU/call  ${f(row.wakeups / calls, 2)} wake-ups/call  ${f((row.gc.scavenges * 1000) / calls, 1)} scavenges/1k calls  ${f((row.gc.scavengeMs * 1000) / calls, 1)} µs scavenging/call  ${f((row.gc.promotedMb * 1024) / calls, 1)} KB promoted/call`,
        );
      }
    }
  } finally {
    await Promise.all([gw.proc.stop(), http?.proc.stop()]);
  }
  const of = (revision: Revision, value: (row: (typeof rows)[number]) => number) => median(rows.filter((x) => x.revision === revision).map(value));
  console.log(
    `\n${backendArg} backend, ${clients} clients${RATE ? ` offering ${RATE} calls/s` : ', closed loop'}, ${rounds} rounds of ${seconds} s, medians; ${js}`,
  );
  console.log(
    table(
      ['revision', 'calls/s', 'gateway CPU µs/call', 'wake-ups/call', 'scavenges/1k calls', 'scavenging µs/call', 'promoted KB/call'],
      ([LEGACY, MODERN] as const).map((revision) => [
        revision,
        f(of(revision, (x) => x.calls / Number(seconds))),
        f(of(revision, (x) => x.cpuUs / x.calls)),
        f(
          of(revision, (x) => x.wakeups / x.calls),
          2,
        ),
        f(
          of(revision, (x) => (x.gc.scavenges * 1000) / x.calls),
          1,
        ),
        f(
          of(revision, (x) => (x.gc.scavengeMs * 1000) / x.calls),
          1,
        ),
        f(
          of(revision, (x) => (x.gc.promotedMb * 1024) / x.calls),
          1,
        ),
      ]),
    ),
  );
}

runMain(main, removeWork);
