/** The optimizer section of `npm run bench` (BENCH_ONLY=optimizer): tokens, retrieval quality, latency. */
import { f, table } from '../format.js';
import { exposedTools, loadCatalogs, loadRequests } from './dataset.js';
import { latencyFigures, type LatencyRow } from './latency.js';
import { qualityTable, type Quality, type QualityRow } from './quality.js';
import { tokenFigures, type TokenRow } from './tokens.js';

export interface OptimizerResults {
  tokens: TokenRow[];
  find_tool_answer_tokens: { mean: number; max: number };
  quality: { tools: number; requests: number; ladder: QualityRow[]; without: QualityRow[]; misses: string[] };
  latency: LatencyRow[];
}

export async function optimizerSection(root: string): Promise<OptimizerResults> {
  const catalogs = loadCatalogs();
  const requests = loadRequests(catalogs);
  const tools = exposedTools(catalogs);

  const tokens = await tokenFigures(root, catalogs, requests);
  console.log('\n## tools/list tokens (o200k_base)');
  console.log(
    table(
      ['catalog', 'tools', 'without', 'with optimizer', 'saved'],
      tokens.rows.map((r) => [r.catalog, String(r.tools), String(r.without_optimizer), String(r.with_optimizer), r.saved]),
    ),
  );
  console.log(`one find_tool answer (5 matches): ${tokens.find_tool_answer_tokens.mean} tokens on average, ${tokens.find_tool_answer_tokens.max} at most`);

  const quality = qualityTable(tools, requests);
  const count = (split: string) => requests.filter((r) => r.split === split).length;
  console.log(
    `\n## Retrieval quality: ${tools.length} tools of ${catalogs.length} servers, ${requests.length} labelled requests ` +
      `(dev ${count('dev')}: tuned on; test ${count('test')}: held out while tuning; fresh ${count('fresh')}: written after it)`,
  );
  const pct = (x: number) => `${f(100 * x, 1)}%`;
  const cells = (q: Quality) => [pct(q.recall_at_1), pct(q.recall_at_5), f(q.mrr, 3)];
  console.log(
    table(
      ['variant', 'fresh R@1', 'fresh R@5', 'fresh MRR', 'test R@1', 'test R@5', 'test MRR', 'dev R@1', 'dev R@5', 'dev MRR'],
      [...quality.ladder, ...quality.without].map((r) => [r.variant, ...cells(r.fresh), ...cells(r.test), ...cells(r.dev)]),
    ),
  );
  console.log(`not in the top 5 (${quality.misses.length}):\n  ${quality.misses.join('\n  ')}`);

  const latency = await latencyFigures(catalogs, requests);
  console.log('\n## Search latency and index build');
  console.log(
    table(
      ['tools', 'search p50 ms', 'search p99 ms', 'build ms', 'chunked build ms', 'longest stall ms', 'update one backend ms'],
      latency.map((r) => [
        String(r.tools),
        f(r.search_p50_ms, 3),
        f(r.search_p99_ms, 3),
        f(r.build_ms, 1),
        f(r.chunked_build_ms, 1),
        f(r.chunked_longest_stall_ms, 1),
        f(r.update_one_backend_ms, 1),
      ]),
    ),
  );
  return {
    tokens: tokens.rows,
    find_tool_answer_tokens: tokens.find_tool_answer_tokens,
    quality: { tools: tools.length, requests: requests.length, ...quality },
    latency,
  };
}
