/**
 * How fast the search is: p50 and p99 of one search (the labelled requests,
 * each run several times) over 1,000 and 10,000 tools (the data set's real
 * tools, repeated under other backend names), the time to build the index from
 * nothing (at once, and in chunks as the gateway does, with the longest the
 * event loop was held), and to update it when one backend's tools change;
 * lexical only (before the word vectors) and as the gateway searches.
 */
import { performance } from 'node:perf_hooks';
import { ALL_SEARCH_STEPS, DEFAULT_TUNING, ToolIndex } from '../../runtime/optimizer/tool-index.js';
import type { WordVectors } from '../../runtime/optimizer/word-vectors.js';
import { pct } from '../harness.js';
import { exposedTools, type Catalog, type LabelledRequest } from './dataset.js';

export interface LatencyRow {
  /** `lexical` (no word vectors) or `gateway` (with them). */
  search: string;
  tools: number;
  search_p50_ms: number;
  search_p99_ms: number;
  build_ms: number;
  /** The gateway's way: the same build in chunks, the event loop free between them. */
  chunked_build_ms: number;
  /** The longest the event loop was held during the chunked build (what other requests may wait). */
  chunked_longest_stall_ms: number;
  update_one_backend_ms: number;
}

const ROUNDS = 5;

/** Builds the index in chunks while a timer notes the longest gap between its turns. */
async function chunkedBuild(tools: ReturnType<typeof exposedTools>, make: () => ToolIndex): Promise<{ ms: number; stall: number }> {
  let last = performance.now();
  let stall = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
  }, 1);
  const t0 = performance.now();
  await make().replaceInChunks(tools);
  const ms = performance.now() - t0;
  clearInterval(timer);
  return { ms, stall: Math.max(stall, performance.now() - last) };
}

export async function latencyFigures(
  catalogs: Catalog[],
  requests: LabelledRequest[],
  vectors: WordVectors | undefined,
  sizes = [1000, 10_000],
): Promise<LatencyRow[]> {
  const rows: LatencyRow[] = [];
  const variants: Array<[string, () => ToolIndex]> = [['lexical', () => new ToolIndex({ ...ALL_SEARCH_STEPS, vectors: false })]];
  if (vectors) variants.push(['gateway', () => new ToolIndex(ALL_SEARCH_STEPS, DEFAULT_TUNING, vectors)]);
  for (const size of sizes) for (const [search, make] of variants) rows.push(await measure(catalogs, requests, size, search, make));
  return rows;
}

async function measure(catalogs: Catalog[], requests: LabelledRequest[], size: number, search: string, make: () => ToolIndex): Promise<LatencyRow> {
  const perCopy = exposedTools(catalogs).length;
  {
    const tools = exposedTools(catalogs, Math.ceil(size / perCopy)).slice(0, size);
    const builds: number[] = [];
    let index = make();
    for (let i = 0; i < 3; i++) {
      index = make();
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
    const chunked = await chunkedBuild(tools, make);
    return {
      search,
      tools: tools.length,
      search_p50_ms: pct(times, 50),
      search_p99_ms: pct(times, 99),
      build_ms: builds.sort((a, b) => a - b)[1],
      chunked_build_ms: chunked.ms,
      chunked_longest_stall_ms: chunked.stall,
      update_one_backend_ms: update,
    };
  }
}
