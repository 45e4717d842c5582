/**
 * `node dist/bench/containers.js`: how long a stdio backend takes to become
 * usable (connect, initialize, tools/list) as a bare process and in its
 * hardened container: first start (image built from scratch, no cache) and
 * warm start (image reused). Prints a table and writes
 * bench/results/containers-<timestamp>.json. Not part of `npm test`.
 *
 * Environment (all optional):
 *   BENCH_SOCKET      container API socket (default: GATEWAY_TEST_PODMAN_SOCKET, then discovery)
 *   BENCH_NODE_BASE   Node base image (default: the test base, made from this host's node)
 *   BENCH_REPEAT      warm and bare measurements each (default 5, median reported)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/client';
import { parseConfigText } from '../controller/config/config-loader.js';
import type { StdioBackendSpec } from '../schemas/config.js';
import { ProcessGroupStdioTransport } from '../runtime/transports/process-group-stdio-transport.js';
import { ContainerManager } from '../runtime/containers/container-manager.js';
import { buildBaseFromHost } from '../runtime/containers/base-from-host.js';
import { ROOT } from './harness.js';
import { median } from './stats.js';

const REPEAT = Number(process.env.BENCH_REPEAT ?? 5);
const NODE_BASE = process.env.BENCH_NODE_BASE ?? 'localhost/mcp-gateway-test/node-base:host';
const SOCKET = process.env.BENCH_SOCKET ?? process.env.GATEWAY_TEST_PODMAN_SOCKET;

/** The example config's two forms of a backend: a script from node_modules, and npx (packages installed at build time). */
const BACKENDS: Record<string, StdioBackendSpec> = {
  'memory (node script)': { type: 'stdio', command: 'node', args: ['node_modules/@modelcontextprotocol/server-memory/dist/index.js'], cwd: ROOT },
  'memory (npx)': { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], cwd: ROOT },
};

/** Milliseconds from nothing to a listed catalog, then closes. */
async function timeToTools(transport: () => Promise<Transport>): Promise<number> {
  const started = performance.now();
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(await transport());
  await client.listTools();
  const ms = performance.now() - started;
  await client.close();
  return ms;
}

async function main(): Promise<void> {
  const containers = parseConfigText(`backends: {}\ncontainers: { ${SOCKET ? `socket: ${SOCKET}, ` : ''}base_images: { node: ${NODE_BASE} } }\n`).containers;
  const manager = await ContainerManager.detect(containers, { cwd: ROOT });
  if (!manager.runtime) throw new Error(`no container runtime: ${manager.unavailableReason}`);
  await buildBaseFromHost(manager.runtime, NODE_BASE);
  const rows: Record<string, number | string>[] = [];
  for (const [label, spec] of Object.entries(BACKENDS)) {
    const name = `bench-${label.replace(/\W+/g, '-')}`;
    const bare: number[] = [];
    for (let i = 0; i < REPEAT; i++) {
      bare.push(await timeToTools(async () => new ProcessGroupStdioTransport({ command: spec.command, args: spec.args, cwd: spec.cwd })));
    }
    const start = async (noCache: boolean) => {
      let buildMs = 0;
      const total = await timeToTools(async () => {
        const t = performance.now();
        // The gateway's steps for a stdio backend in a container: its placement, its image, the transport that starts it.
        const placement = manager.placement(name, spec);
        if (placement.mode !== 'container') throw new Error(placement.mode === 'failed' ? placement.error.message : placement.reason);
        const image = await manager.ensureImage(placement.plan, { noCache });
        buildMs = performance.now() - t;
        return manager.createTransport(name, spec, placement.plan, image);
      });
      return { total, buildMs };
    };
    const first = await start(true);
    const warm: number[] = [];
    for (let i = 0; i < REPEAT; i++) warm.push((await start(false)).total);
    rows.push({
      backend: label,
      bare_ms: Math.round(median(bare)),
      container_first_ms: Math.round(first.total),
      of_which_build_ms: Math.round(first.buildMs),
      container_warm_ms: Math.round(median(warm)),
    });
  }
  console.log(`runtime: ${manager.runtime.name} ${manager.runtime.version}; medians of ${REPEAT} (first start: one run, --no-cache)`);
  console.table(rows);
  const dir = join(ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `containers-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify({ runtime: manager.runtimeSummary, repeat: REPEAT, rows }, null, 2));
  console.log(`written ${file}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
