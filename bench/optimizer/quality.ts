/**
 * Retrieval quality of the tool search on the labelled requests: recall@1,
 * recall@5 and MRR, for plain BM25 and then with each step of the search
 * added in turn, and for the full search with each step taken out again.
 */
import {
  ALL_SEARCH_STEPS,
  DEFAULT_TUNING,
  PLAIN_TUNING,
  ToolIndex,
  type IndexedTool,
  type SearchSteps,
  type SearchTuning,
} from '../../runtime/optimizer/tool-index.js';
import type { LabelledRequest } from './dataset.js';

export interface Quality {
  requests: number;
  recall_at_1: number;
  recall_at_5: number;
  mrr: number;
}

export interface QualityRow {
  variant: string;
  dev: Quality;
  test: Quality;
  fresh: Quality;
  all: Quality;
}

const NONE: SearchSteps = { stopWords: false, stem: false, fieldWeights: false, prefix: false, fuzzy: false, synonyms: false };

/** Plain BM25, then one step more per row (the order the search applies them in); the tuning row is the gateway's numbers. */
export const LADDER: Array<[string, Partial<SearchSteps>, SearchTuning?]> = [
  ['plain BM25+ (MiniSearch defaults; words split, all fields equal)', {}],
  ['+ stop words', { stopWords: true }],
  ['+ field weights', { fieldWeights: true }],
  ['+ stemming', { stem: true }],
  ['+ prefix and fuzzy', { prefix: true, fuzzy: true }],
  ['+ synonyms, every word expanded', { synonyms: true }],
  ['+ tuning (BM25, first 60 words, rare words expanded) = the gateway', {}, DEFAULT_TUNING],
];

const STEP_NAMES: Array<[string, Array<keyof SearchSteps>]> = [
  ['stop words', ['stopWords']],
  ['field weights', ['fieldWeights']],
  ['stemming', ['stem']],
  ['prefix and fuzzy', ['prefix', 'fuzzy']],
  ['synonyms', ['synonyms']],
];

export function evaluate(
  tools: IndexedTool[],
  requests: LabelledRequest[],
  steps: SearchSteps,
  tuning: SearchTuning = DEFAULT_TUNING,
): { dev: Quality; test: Quality; fresh: Quality; all: Quality; misses: string[] } {
  const index = new ToolIndex(steps, tuning);
  index.replace(tools);
  const ranks = requests.map((r) => {
    const names = index.search(r.request, { limit: 50 }).map((m) => m.name);
    const rank = names.findIndex((n) => r.expected.includes(n));
    return { r, rank: rank < 0 ? Infinity : rank + 1, top: names.slice(0, 3) };
  });
  const score = (subset: typeof ranks): Quality => ({
    requests: subset.length,
    recall_at_1: subset.filter((x) => x.rank <= 1).length / subset.length,
    recall_at_5: subset.filter((x) => x.rank <= 5).length / subset.length,
    mrr: subset.reduce((s, x) => s + (x.rank === Infinity ? 0 : 1 / x.rank), 0) / subset.length,
  });
  return {
    dev: score(ranks.filter((x) => x.r.split === 'dev')),
    test: score(ranks.filter((x) => x.r.split === 'test')),
    fresh: score(ranks.filter((x) => x.r.split === 'fresh')),
    all: score(ranks),
    misses: ranks
      .filter((x) => x.rank > 5)
      .map((x) => `#${x.r.id} "${x.r.request}" → ${x.top.join(', ') || '(nothing)'} (wanted ${x.r.expected.slice(0, 2).join(' or ')})`),
  };
}

export function qualityTable(tools: IndexedTool[], requests: LabelledRequest[]): { ladder: QualityRow[]; without: QualityRow[]; misses: string[] } {
  const ladder: QualityRow[] = [];
  let steps = { ...NONE };
  for (const [variant, add, tuning] of LADDER) {
    steps = { ...steps, ...add };
    const { dev, test, fresh, all } = evaluate(tools, requests, steps, tuning ?? PLAIN_TUNING);
    ladder.push({ variant, dev, test, fresh, all });
  }
  const without = STEP_NAMES.map(([name, keys]): QualityRow => {
    const off = { ...ALL_SEARCH_STEPS, ...Object.fromEntries(keys.map((k) => [k, false])) };
    const { dev, test, fresh, all } = evaluate(tools, requests, off);
    return { variant: `the gateway without ${name}`, dev, test, fresh, all };
  });
  return { ladder, without, misses: evaluate(tools, requests, ALL_SEARCH_STEPS).misses };
}
