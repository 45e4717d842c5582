/**
 * Retrieval quality of the tool search on the labelled requests: recall@1,
 * recall@5 and MRR, for plain BM25 and then with each step of the search
 * added in turn, and for the full search with each step taken out again.
 * Figures per split and for the splits never tuned on together (`held out`);
 * the requests missed are listed for the tuning split only, so that the
 * held-out ones stay unseen.
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
import type { WordVectors } from '../../runtime/optimizer/word-vectors.js';
import { HELD_OUT, SPLITS, type LabelledRequest, type Split } from './dataset.js';

export interface Quality {
  requests: number;
  recall_at_1: number;
  recall_at_5: number;
  mrr: number;
}

export interface QualityRow {
  variant: string;
  /** The splits never tuned on, together. */
  held_out: Quality;
  splits: Record<Split, Quality>;
}

const NONE: SearchSteps = {
  stopWords: false,
  stem: false,
  fieldWeights: false,
  prefix: false,
  fuzzy: false,
  synonyms: false,
  vectors: false,
  actions: false,
  safety: false,
  values: false,
  firstSentence: false,
  sameAction: false,
};

/** Plain BM25, then one step more per row (the order the search applies them in); the tuning row is the gateway's numbers before word vectors. */
export const LADDER: Array<[string, Partial<SearchSteps>, SearchTuning?]> = [
  ['plain BM25+ (MiniSearch defaults; words split, all fields equal)', {}],
  ['+ stop words', { stopWords: true }],
  ['+ field weights', { fieldWeights: true }],
  ['+ stemming', { stem: true }],
  ['+ prefix and fuzzy', { prefix: true, fuzzy: true }],
  ['+ synonyms, every word expanded', { synonyms: true }],
  ['+ tuning (BM25, first 60 words, rare words expanded) = the lexical search', {}, DEFAULT_TUNING],
  ['+ word vectors (each request word meets its closest tool word; fused with BM25)', { vectors: true }, DEFAULT_TUNING],
  ['+ action words (count half; a tool doing more harm than asked ranks lower)', { actions: true }, DEFAULT_TUNING],
  ['+ near ties to read-only and non-destructive tools', { safety: true }, DEFAULT_TUNING],
  ['+ values read as their kind (draft.md a file, github.com/x/y a URL; their own words count little)', { values: true }, DEFAULT_TUNING],
  ['+ the first sentence of the description as a field of its own', { firstSentence: true }, DEFAULT_TUNING],
  ['+ the tool doing the action asked ranks a little higher = the gateway', { sameAction: true }, DEFAULT_TUNING],
];

const STEP_NAMES: Array<[string, Array<keyof SearchSteps>]> = [
  ['stop words', ['stopWords']],
  ['field weights', ['fieldWeights']],
  ['stemming', ['stem']],
  ['prefix and fuzzy', ['prefix', 'fuzzy']],
  ['synonyms', ['synonyms']],
  ['word vectors', ['vectors']],
  ['action words', ['actions']],
  ['safety tie-break', ['safety']],
  ['values read as their kind', ['values']],
  ['first sentence field', ['firstSentence']],
  ['same action ranks higher', ['sameAction']],
];

export interface Evaluation {
  row: QualityRow;
  /** The tuning split's requests not in the top 5. */
  devMisses: string[];
}

export function evaluate(
  variant: string,
  tools: IndexedTool[],
  requests: LabelledRequest[],
  steps: SearchSteps,
  tuning: SearchTuning = DEFAULT_TUNING,
  vectors?: WordVectors,
): Evaluation {
  const index = new ToolIndex(steps, tuning, vectors);
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
  const splits = Object.fromEntries(SPLITS.map((s) => [s, score(ranks.filter((x) => x.r.split === s))])) as Record<Split, Quality>;
  return {
    row: { variant, held_out: score(ranks.filter((x) => HELD_OUT.includes(x.r.split))), splits },
    devMisses: ranks
      .filter((x) => x.r.split === 'dev' && x.rank > 5)
      .map((x) => `#${x.r.id} "${x.r.request}" → ${x.top.join(', ') || '(nothing)'} (wanted ${x.r.expected.slice(0, 2).join(' or ')})`),
  };
}

export function qualityTable(
  tools: IndexedTool[],
  requests: LabelledRequest[],
  vectors?: WordVectors,
): { ladder: QualityRow[]; without: QualityRow[]; devMisses: string[] } {
  const ladder: QualityRow[] = [];
  let steps = { ...NONE };
  for (const [variant, add, tuning] of LADDER) {
    steps = { ...steps, ...add };
    ladder.push(evaluate(variant, tools, requests, steps, tuning ?? PLAIN_TUNING, vectors).row);
  }
  const without = STEP_NAMES.map(([name, keys]): QualityRow => {
    const off = { ...ALL_SEARCH_STEPS, ...Object.fromEntries(keys.map((k) => [k, false])) };
    return evaluate(`the gateway without ${name}`, tools, requests, off, DEFAULT_TUNING, vectors).row;
  });
  return { ladder, without, devMisses: evaluate('the gateway', tools, requests, ALL_SEARCH_STEPS, DEFAULT_TUNING, vectors).devMisses };
}
