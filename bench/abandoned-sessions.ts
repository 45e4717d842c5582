/**
 * Sessions that clients open and never close (issue 17): many `initialize`
 * requests, each a new session the client then forgets (no DELETE, no further
 * request). The gateway must let them go once `server.session_ttl` passes,
 * and its memory must come back down to where it was.
 *
 * The requests are bare node:http POSTs (an SDK Client per session would cost
 * the load generator far more than the gateway), on a few keep-alive sockets.
 * The gateway runs with GC_ON_SIGNAL_ARGS: a full GC before each reading, so
 * the readings compare what is still referenced, not V8's collection schedule.
 */
import http from 'node:http';
import { rssBytes, sleep, type Proc } from './proc.js';
import { collectGarbage } from './harness.js';

export interface AbandonResult {
  sessions: number;
  ttl_s: number;
  open_s: number;
  /** RSS before, right after opening them all, and once the TTL (and the reaper) has passed. */
  rss_base_mb: number;
  rss_peak_mb: number;
  rss_after_ttl_mb: number;
  /** V8 heap in use after a full GC: before, and once the TTL has passed. */
  heap_base_mb: number;
  heap_after_ttl_mb: number;
  /** Sessions the management API still lists after the TTL. */
  sessions_left: number | undefined;
  /** After the TTL: no session left, and the heap in use within BASE_TOLERANCE_MB of the base (V8 keeps freed pages, so RSS is only reported). */
  returned_to_base: boolean;
}

/** The heap in use after the TTL may exceed the base by this much and still count as "back to base". */
export const BASE_TOLERANCE_MB = 5;

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench-abandon', version: '1.0.0' } },
});

function initializeOnce(url: URL, agent: http.Agent): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        hostname: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': Buffer.byteLength(INITIALIZE) },
      },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 && res.headers['mcp-session-id'] ? resolve() : reject(new Error(`initialize: HTTP ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end(INITIALIZE);
  });
}

async function sessionsListed(base: string): Promise<number | undefined> {
  try {
    const res = await fetch(`${base}/manage/v1/sessions`);
    const body = (await res.json()) as { sessions?: unknown[] };
    return body.sessions?.length;
  } catch {
    return undefined;
  }
}

/** `mcpUrl`: the gateway's /mcp; `base`: its root; `proc`: its process (started with GC_ON_SIGNAL_ARGS); `ttlS`: its configured session_ttl. */
export async function abandonSessions(mcpUrl: string, base: string, proc: Proc, count: number, ttlS: number): Promise<AbandonResult> {
  const url = new URL(mcpUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  // Warm up (modules, JIT) with a few sessions, let them expire, then take the base.
  for (let i = 0; i < 50; i++) await initializeOnce(url, agent);
  await sleep(ttlS * 1000 + 2000);
  const memBase = await collectGarbage(proc);
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < count) {
        next++;
        await initializeOnce(url, agent);
      }
    }),
  );
  const openS = (performance.now() - t0) / 1000;
  const rssPeak = rssBytes(proc.pid);
  agent.destroy();
  // The reaper runs every ttl/4: after ttl + that (+ slack), every session is gone.
  await sleep(ttlS * 1500 + 2000);
  const left = await sessionsListed(base);
  const memAfter = await collectGarbage(proc);
  const mb = (b: number) => b / 2 ** 20;
  return {
    sessions: count,
    ttl_s: ttlS,
    open_s: openS,
    rss_base_mb: memBase.rssMb,
    rss_peak_mb: mb(rssPeak),
    rss_after_ttl_mb: memAfter.rssMb,
    heap_base_mb: memBase.heapUsedMb,
    heap_after_ttl_mb: memAfter.heapUsedMb,
    sessions_left: left,
    returned_to_base: memAfter.heapUsedMb - memBase.heapUsedMb <= BASE_TOLERANCE_MB && left === 0,
  };
}
