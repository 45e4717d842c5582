/**
 * What the plugin chain itself costs on a call, measured in this process
 * where time is not shared with a network stack: the call (by default the
 * bench's: `echo` of "hello from the bench", answered with that text and the
 * same structured content) run through a chain again and again, against a
 * backend that answers at once. The end-to-end rows (./plugins.ts) are the
 * truth of a call; these say how much of it is the chain's, with far less
 * noise.
 */
import { cpuUsage } from 'node:process';
import type { ToolAnnotations } from '@modelcontextprotocol/client';
import type { GatewayConfig } from '../schemas/config.js';
import { parseConfigText } from '../controller/config/config-loader.js';
import { silentLogger } from '../runtime/observability/logging/logger.js';
import { PluginSet } from '../runtime/plugins/plugin-set.js';
import type { PluginCall } from '../runtime/plugins/plugin.js';
import type { OperationContext } from '../runtime/routing/operation.js';
import type { JsonObject } from '../runtime/routing/caller.js';

/** The bench's call (bench/loadgen.ts). */
export const BENCH_TEXT = 'hello from the bench';
/** Alternating measurements of each kind; the least of each is kept. */
const ROUNDS = 5;

/** Which call the chain is run for. */
export interface CostCall {
  /** The echoed text (arguments and result); default the bench's. */
  text?: string;
  /** The tool's annotations (the bench's echo has none). */
  annotations?: ToolAnnotations;
  /** Each call with other arguments (every one a cache miss). */
  vary?: boolean;
}

/** What the chain adds to one call: CPU of the whole process (a plugin's worker thread included) and time until the answer. */
export interface ChainCost {
  cpu_us: number;
  wall_us: number;
}

/**
 * CPU and wall-clock µs per call of the chain of `plugins` (YAML list), the
 * backend's answer excluded: the call with the chain less the same call
 * without one, measured alternately, the least of each (what the machine's
 * other load added least to). The CPU is the process's, so a plugin of your
 * own counts with its worker thread's work.
 */
export async function chainCost(plugins: unknown[], how: CostCall = {}): Promise<ChainCost> {
  const config: GatewayConfig = parseConfigText(JSON.stringify({ plugins }));
  const set = new PluginSet({ log: silentLogger(), events: () => undefined });
  await set.apply(config.plugins);
  const chain = set.chain;
  const base = how.text ?? BENCH_TEXT;
  // Enough calls for a measurement of some tens of milliseconds at least (a worker's hop takes tens of µs).
  const calls = base.length > 1000 || hasModule(plugins) ? 2_000 : 20_000;
  let n = 0;
  const once = (withChain: boolean): Promise<JsonObject> => {
    const text = how.vary ? `${base} ${n++}` : base;
    const forward = (): Promise<JsonObject> => Promise.resolve({ content: [{ type: 'text', text }], structuredContent: { text } });
    const op: OperationContext = { method: 'call_tool', capability: 'h_echo', sessionId: 's', transport: 'streamable-http', clientIp: '127.0.0.1' };
    const call: PluginCall = {
      method: 'tools/call',
      name: 'h_echo',
      backend: 'h',
      originalName: 'echo',
      ...(how.annotations && { annotations: how.annotations }),
      arguments: { text },
      caller: { sessionId: 's', transport: 'streamable-http', clientIp: '127.0.0.1' },
    };
    return withChain && chain ? chain.run(op, call, forward) : forward();
  };
  const measure = async (withChain: boolean): Promise<ChainCost> => {
    const start = cpuUsage();
    const began = performance.now();
    for (let i = 0; i < calls; i++) await once(withChain);
    const used = cpuUsage(start);
    return { cpu_us: (used.user + used.system) / calls, wall_us: ((performance.now() - began) * 1000) / calls };
  };
  // Warm-up (JIT, caches), then alternate.
  await measure(true);
  await measure(false);
  const withChain: ChainCost[] = [];
  const without: ChainCost[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    withChain.push(await measure(true));
    without.push(await measure(false));
  }
  await set.close();
  // Signed: below the noise, or a chain that answers itself (a cache hit), it may come out below zero.
  const least = (xs: ChainCost[], key: keyof ChainCost) => Math.min(...xs.map((x) => x[key]));
  return {
    cpu_us: least(withChain, 'cpu_us') - least(without, 'cpu_us'),
    wall_us: least(withChain, 'wall_us') - least(without, 'wall_us'),
  };
}

function hasModule(plugins: unknown[]): boolean {
  return plugins.some((p) => typeof p === 'object' && p !== null && 'module' in p);
}
