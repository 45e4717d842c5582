/**
 * How fast the search is: p50 and p99 of one search (the labelled requests,
 * each run several times) over 1,000 and 10,000 tools (the data set's real
 * tools, repeated under other backend names), the time to build the index from
 * nothing, and to update it when one backend's tools change.
 */
import { performance } from 'node:perf_hooks';
import { ToolIndex } from '../../runtime/optimizer/tool-index.js';
import { pct } from '../harness.js';
import { exposedTools, type Catalog, type LabelledRequest } from './dataset.js';

export interface LatencyRow {
  tools: number;
  search_p50_ms: number;
  search_p99_ms: number;
  build_ms: number;
  update_one_backend_ms: number;
}

const ROUNDS = 5;

export function latencyFigures(catalogs: Catalog[], requests: LabelledRequest[], sizes = [1000, 10_000]): LatencyRow[] {
  const perCopy = exposedTools(catalogs).length;
  return sizes.map((size) => {
    const tools = exposedTools(catalogs, Math.ceil(size / perCopy)).slice(0, size);
    const builds: number[] = [];
    let index = new ToolIndex();
    for (let i = 0; i < 3; i++) {
      index = new ToolIndex();
      const t0 = performance.now();
      index.replace(tools);
      builds.push(performance.now() - t0);
    }
    // One backend's tools change (a new version of its server): only they are indexed again.
    const backend = tools[0].backend;
    const changed = tools.map((t) => (t.backend === backend ? { ...t, tool: { ...t.tool, description: `${t.tool.description ?? ''} (v2)` } } : t));
    const t1 = performance.now();
    index.replace(changed);
    const update = performance.now() - t1;
    const times: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const r of requests) {
        const t = performance.now();
        index.search(r.request, { limit: 5 });
        times.push(performance.now() - t);
      }
    }
    times.sort((a, b) => a - b);
    return {
      tools: tools.length,
      search_p50_ms: pct(times, 50),
      search_p99_ms: pct(times, 99),
      build_ms: builds.sort((a, b) => a - b)[1],
      update_one_backend_ms: update,
    };
  });
}
