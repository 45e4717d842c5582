/** The optimizer section of `npm run bench` (BENCH_ONLY=optimizer): tokens, retrieval quality, latency, what the word vectors cost. */
import { loadWordVectors } from '../../runtime/optimizer/word-vectors.js';
import { f, table } from '../format.js';
import { exposedTools, loadCatalogs, loadRequests, SPLITS } from './dataset.js';
import { latencyFigures, type LatencyRow } from './latency.js';
import { qualityTable, type Quality, type QualityRow } from './quality.js';
import { tokenFigures, type TokenRow } from './tokens.js';
import { vectorsCost, type VectorsCost } from './vectors-cost.js';

export interface OptimizerResults {
  tokens: TokenRow[];
  find_tool_answer_tokens: { mean: number; max: number };
  quality: { tools: number; requests: number; ladder: QualityRow[]; without: QualityRow[]; devMisses: string[] };
  latency: LatencyRow[];
  vectors?: VectorsCost;
}

export async function optimizerSection(root: string): Promise<OptimizerResults> {
  const catalogs = loadCatalogs();
  const requests = loadRequests(catalogs);
  const tools = exposedTools(catalogs);
  const vectors = await loadWordVectors();
  if (!vectors) console.log('no word vectors (npm run build derives them): the search is measured lexical only');

  const tokens = await tokenFigures(root, catalogs, requests, vectors);
  console.log('\n## tools/list tokens (o200k_base)');
  console.log(
    table(
      ['catalog', 'tools', 'without', 'with optimizer', 'saved'],
      tokens.rows.map((r) => [r.catalog, String(r.tools), String(r.without_optimizer), String(r.with_optimizer), r.saved]),
    ),
  );
  console.log(`one find_tool answer (5 matches): ${tokens.find_tool_answer_tokens.mean} tokens on average, ${tokens.find_tool_answer_tokens.max} at most`);

  const quality = qualityTable(tools, requests, vectors);
  const count = (split: string) => requests.filter((r) => r.split === split).length;
  console.log(
    `\n## Retrieval quality: ${tools.length} tools of ${catalogs.length} servers, ${requests.length} labelled requests ` +
      `(${SPLITS.map((s) => `${s} ${count(s)}`).join(', ')}; held out = test + fresh + heldout, never tuned on)`,
  );
  const pct = (x: number) => `${f(100 * x, 1)}%`;
  const cells = (q: Quality) => [pct(q.recall_at_1), pct(q.recall_at_5), f(q.mrr, 3)];
  console.log(
    table(
      ['search', 'held-out R@1', 'R@5', 'MRR', 'heldout R@1', 'R@5', 'MRR', 'test R@5', 'fresh R@5', 'dev R@1', 'R@5', 'MRR'],
      [...quality.ladder, ...quality.without].map((r) => [
        r.variant,
        ...cells(r.held_out),
        ...cells(r.splits.heldout),
        pct(r.splits.test.recall_at_5),
        pct(r.splits.fresh.recall_at_5),
        ...cells(r.splits.dev),
      ]),
    ),
  );
  console.log(`dev requests not in the top 5 (${quality.devMisses.length}; the held-out ones are not listed):\n  ${quality.devMisses.join('\n  ')}`);

  const latency = await latencyFigures(catalogs, requests, vectors);
  console.log('\n## Search latency and index build');
  console.log(
    table(
      ['search', 'tools', 'search p50 ms', 'search p99 ms', 'build ms', 'chunked build ms', 'longest stall ms', 'update one backend ms'],
      latency.map((r) => [
        r.search,
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
  const cost = vectorsCost();
  if (cost)
    console.log(
      `\n## Word vectors: ${cost.words} words from ${cost.source}, a ${f(cost.file_mb, 1)} MB file; ` +
        `read in ${f(cost.load_ms, 0)} ms when the first index is built; RSS +${f(cost.rss_mb, 1)} MB (heap +${f(cost.heap_mb, 1)} MB)`,
    );
  return {
    tokens: tokens.rows,
    find_tool_answer_tokens: tokens.find_tool_answer_tokens,
    quality: { tools: tools.length, requests: requests.length, ...quality },
    latency,
    ...(cost ? { vectors: cost } : {}),
  };
}
