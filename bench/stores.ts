/**
 * The session store's cost per call (issue 23): the same gateway twice, its
 * sessions in memory (A) and in Redis (B, a redis-server of the bench's own),
 * both running at once on the same backends, measured in alternating phases
 * (A B, B A, …) so that whatever else the machine does hits both alike; the
 * medians are compared. Audit on, /mcp, the SDK client and backend of the
 * scenarios. Target: the Redis store within 5 % of the memory store's CPU per
 * call (a call on a session the replica has cached does no Redis round trip).
 */
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { f, table } from './format.js';
import { QUICK, childPids, freePort, loadPhase, sdkStdioCmd, startGateway, startHttpBackend, work, type LoadGen, type Row } from './harness.js';
import { startProcess } from './proc.js';
import { median } from './stats.js';
import { SCENARIO_CLIENTS } from './scenarios.js';

const ROUNDS = Number(process.env.BENCH_STORE_ROUNDS ?? (QUICK ? 2 : 6));
export const STORE_TARGET_RATIO = 1.05;

export interface StoreComparison {
  backend: 'http' | 'stdio';
  clients: number;
  rounds: number;
  memory_us: number;
  redis_us: number;
  ratio: number;
  rows: Row[];
}

export async function compareStores(lg: LoadGen): Promise<StoreComparison[]> {
  const redis = await startRedis();
  const sdk = await startHttpBackend('stores', 'sdk');
  const backends = { h: { type: 'streamable-http', url: sdk.url }, s: { type: 'stdio', ...sdkStdioCmd('s') } };
  const memory = await startGateway('stores-memory', backends);
  const shared = await startGateway('stores-redis', backends, { sessions: { store: 'redis', redis: { url: redis.url, key_prefix: 'bench' } } });
  const out: StoreComparison[] = [];
  try {
    for (const clients of SCENARIO_CLIENTS) {
      for (const backend of ['http', 'stdio'] as const) {
        const rows: Row[] = [];
        for (let r = 0; r < ROUNDS; r++) {
          const order =
            r % 2 === 0
              ? ([
                  ['memory', memory],
                  ['redis', shared],
                ] as const)
              : ([
                  ['redis', shared],
                  ['memory', memory],
                ] as const);
          for (const [store, gw] of order) {
            const row = await loadPhase(
              lg,
              {
                name: store,
                transport: 'streamable-http',
                url: gw.url,
                tool: backend === 'http' ? 'h_echo' : 's_echo',
                serverPid: () => [gw.proc.pid],
                backendPid: backend === 'http' ? () => [sdk.proc.pid] : () => childPids(gw.proc.pid),
                method: 'calltool',
              },
              clients,
            );
            rows.push(row);
            console.log(`  sdk-${backend}  ${clients} clients  ${store.padEnd(6)}  ${f(row.server_cpu_us_per_call)} µs/call  ${f(row.calls_per_s)} calls/s`);
          }
        }
        const of = (store: string) => median(rows.filter((x) => x.target === store).map((x) => x.server_cpu_us_per_call ?? NaN));
        const memoryUs = of('memory');
        const redisUs = of('redis');
        out.push({ backend, clients, rounds: ROUNDS, memory_us: memoryUs, redis_us: redisUs, ratio: redisUs / memoryUs, rows });
      }
    }
    return out;
  } finally {
    await Promise.all([memory.proc.stop(), shared.proc.stop(), sdk.proc.stop()]);
    await redis.proc.stop();
  }
}

export function storeTable(results: readonly StoreComparison[]): string {
  return table(
    ['backend', 'clients', 'rounds', 'memory store µs/call', 'redis store µs/call', `redis / memory (≤ ${STORE_TARGET_RATIO})`],
    results.map((c) => [
      `sdk-${c.backend}`,
      String(c.clients),
      String(c.rounds),
      f(c.memory_us),
      f(c.redis_us),
      `${f(c.ratio, 3)}${c.ratio <= STORE_TARGET_RATIO ? ' ok' : ' MISSED'}`,
    ]),
  );
}

/** A redis-server of the bench's own on a free loopback port, no snapshot schedule. */
async function startRedis() {
  const port = await freePort();
  const dir = join(work, 'redis');
  mkdirSync(dir, { recursive: true });
  const proc = startProcess('redis', 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir]);
  await proc.waitForLine(/Ready to accept connections/, 20_000);
  return { proc, url: `redis://127.0.0.1:${port}` };
}
