/**
 * Meaning where the words differ: each word of a request is compared, by
 * its word vector (word-vectors.ts), with every word of a tool's name,
 * title, description and argument names, and counts as much as its closest
 * one ("sum" for "add", "entity" for "person"). A tool's score is the mean
 * over the request's words, in [0, 1]: a soft version of "how many of the
 * request's words does the tool have" (tool-index.ts fuses it with BM25).
 *
 * Cosines of unrelated words are not zero (0.2 to 0.4 in these vectors), so
 * a similarity counts only above a threshold, rescaled to [0, 1] from there.
 * Word vectors place opposites close ("remember" and "forget" 0.86, "add" and
 * "remove" 0.68): two words that name different actions are never similar
 * here, whatever their vectors say (actions.ts).
 */
import { actionOf } from './actions.js';
import type { WordVectors } from './word-vectors.js';

/** A tool's words by where they come from (analysed as text-analysis.ts splits them, stop words out). */
export type ToolWords = Record<'name' | 'title' | 'description' | 'args' | 'backend', readonly string[]>;

export interface SemanticTuning {
  /** A cosine below this counts as nothing; above it, (cos − threshold) / (1 − threshold). */
  threshold: number;
  /** How much a match in each field counts (the best of a word's matches, so a field weight of 1 is a perfect match). */
  fieldWeights: Record<keyof ToolWords, number>;
  /** Weigh each request word by its inverse document frequency in the catalog (of its closest word), not equally. */
  idf: boolean;
}

export const DEFAULT_SEMANTIC_TUNING: SemanticTuning = {
  threshold: 0.45,
  fieldWeights: { name: 1, title: 1, description: 0.8, args: 0.6, backend: 0.6 },
  idf: false,
};

/** One tool: the catalog-vocabulary slots of its words and the weight of the field each came from (the best when in several). */
interface Entry {
  slots: Int32Array;
  weights: Float32Array;
}

export class SemanticMatcher {
  private readonly entries = new Map<string, Entry>();
  /** Vector row → slot in the catalog's vocabulary; a query is compared only with the words the catalog has. */
  private readonly slotOf = new Map<number, number>();
  private readonly rows: number[] = [];
  /** The action (actions.ts) of each slot's word, or undefined. */
  private readonly actions: Array<string | undefined> = [];
  /** How many tools have each slot's word. */
  private docFreq: number[] = [];

  constructor(
    private readonly vectors: WordVectors,
    private readonly tuning: SemanticTuning = DEFAULT_SEMANTIC_TUNING,
  ) {}

  set(name: string, words: ToolWords): void {
    const best = new Map<number, number>();
    for (const field of Object.keys(words) as Array<keyof ToolWords>) {
      const weight = this.tuning.fieldWeights[field];
      for (const word of words[field]) {
        const slot = this.slot(word);
        if (slot >= 0 && (best.get(slot) ?? 0) < weight) best.set(slot, weight);
      }
    }
    this.delete(name);
    const entry = { slots: Int32Array.from(best.keys()), weights: Float32Array.from(best.values()) };
    for (const slot of entry.slots) this.docFreq[slot] = (this.docFreq[slot] ?? 0) + 1;
    this.entries.set(name, entry);
  }

  delete(name: string): void {
    const old = this.entries.get(name);
    if (old) for (const slot of old.slots) this.docFreq[slot]--;
    this.entries.delete(name);
  }

  clear(): void {
    this.entries.clear();
  }

  /** Each tool's score for the request's words, each with its weight (only tools above 0, only those `visible` lets through). */
  scores(queryWords: ReadonlyArray<{ word: string; weight: number }>, visible?: (name: string) => boolean): Map<string, number> {
    const out = new Map<string, number>();
    const known = [...new Map(queryWords.map((w) => [w.word, w.weight]))]
      .map(([word, weight]) => ({ row: this.vectors.idOf(word), action: actionOf(word), weight }))
      .filter((q) => q.row >= 0);
    if (known.length === 0) return out;
    const { threshold } = this.tuning;
    // The similarity of each query word to each word of the catalog, once per query.
    const sims = known.map((q) =>
      Float32Array.from(this.rows, (row, slot) => {
        const other = this.actions[slot];
        if (q.action && other && q.action !== other) return 0;
        const cos = this.vectors.similarity(q.row, row);
        return cos <= threshold ? 0 : (cos - threshold) / (1 - threshold);
      }),
    );
    // A word's weight: log(N / df) of the catalog word closest to it (a word every tool has tells little).
    const n = this.entries.size;
    const qWeights = sims.map((sim, q) => {
      if (!this.tuning.idf) return known[q].weight;
      let best = -1;
      for (let slot = 0; slot < sim.length; slot++) if (sim[slot] > (best < 0 ? 0 : sim[best])) best = slot;
      return known[q].weight * Math.log(1 + n / (best < 0 ? 1 : Math.max(1, this.docFreq[best])));
    });
    const totalWeight = qWeights.reduce((a, b) => a + b, 0);
    for (const [name, { slots, weights }] of this.entries) {
      if (visible && !visible(name)) continue;
      let total = 0;
      for (let q = 0; q < sims.length; q++) {
        const sim = sims[q];
        let best = 0;
        for (let i = 0; i < slots.length; i++) {
          const s = sim[slots[i]] * weights[i];
          if (s > best) best = s;
        }
        total += best * qWeights[q];
      }
      if (total > 0) out.set(name, total / totalWeight);
    }
    return out;
  }

  private slot(word: string): number {
    const row = this.vectors.idOf(word);
    if (row < 0) return -1;
    let slot = this.slotOf.get(row);
    if (slot === undefined) {
      slot = this.rows.length;
      this.slotOf.set(row, slot);
      this.rows.push(row);
      this.actions.push(actionOf(word));
    }
    return slot;
  }
}
